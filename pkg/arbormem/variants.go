package arbormem

// Paper appendix C.3, the component ablations and which of them are
// answered from the reference instance's ingestion.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
)

// Ablation variants (paper appendix C.3, "Supplementary Analysis Protocols").
const (
	VariantNoLocalization       = "no-localization"
	VariantNoKeywordRouting     = "no-keyword-routing"
	VariantNoAtomicFacts        = "no-atomic-facts"
	VariantNoStructuredExtract  = "no-structured-extraction"
	VariantNoStructuredEvidence = "no-structured-evidence"
)

// Variant is one component ablation.
type Variant struct {
	Name string
	// Switch is the config key (under arbormem:) the variant turns off.
	Switch string
	// RecallOnly is true when the variant changes nothing that Commit
	// stores and reads, so one ingestion can serve it and the reference
	// (memory.Query.Variant); false when it changes what is committed.
	RecallOnly bool
	// Doc states what the variant removes and why it is or is not
	// recall-only.
	Doc string
}

// Variants lists the ablations of appendix C.3.
//
// Which ones change commit-time behaviour:
//   - no-localization is recall-only. It "removes parent selection and
//     branch-local context while retaining globally retrieved atomic facts
//     and structured records". Without localization a recall reads only
//     facts and records, and nothing that produces them (extractors,
//     collision audit) reads the forest, so the forest built at commit is
//     irrelevant to its bundles. Branch-derived record blocks
//     (TopicSlotEvidence, BridgeEvidence) are dropped with the branches.
//     Built with the switch off, the forest is flat (every node a root).
//   - no-keyword-routing changes commit: the lexical/entity channel and
//     s_key take part in localizing every committed interaction, so the
//     forest (and the branch-local context read from it) differs.
//   - no-atomic-facts is recall-only: it "removes retrieved facts from the
//     evidence bundle" (DATA CONTEXT, fact-derived UpdateEvidence, and the
//     fact lines of TopicSlot/Bridge evidence); no other stored state
//     depends on facts. Built with the switch off, facts are not extracted.
//   - no-structured-extraction changes commit: artifacts, events and
//     mutable states are never extracted.
//   - no-structured-evidence is recall-only: it "retains the extracted
//     records but removes their dedicated generation-time evidence block"
//     (every record-channel block).
var Variants = []Variant{
	{Name: VariantNoLocalization, Switch: "localization", RecallOnly: true,
		Doc: "no parent selection and no branch-local context; global facts and records stay"},
	{Name: VariantNoKeywordRouting, Switch: "keyword_routing", RecallOnly: false,
		Doc: "no lexical/entity recall channel and no s_key in localization (changes every placement)"},
	{Name: VariantNoAtomicFacts, Switch: "atomic_facts", RecallOnly: true,
		Doc: "no atomic facts in the bundle"},
	{Name: VariantNoStructuredExtract, Switch: "structured_extraction", RecallOnly: false,
		Doc: "no artifact, event or mutable-state extraction at commit"},
	{Name: VariantNoStructuredEvidence, Switch: "structured_evidence", RecallOnly: true,
		Doc: "records are extracted but no structured evidence block is shown"},
}

// Readings of the scoring choices the paper leaves to interpretation
// (docs/FIDELITY.md: arbormem.ce_score, arbormem.rerank_instruction, τ),
// run as ablation variants to measure how much each decides: they change
// where every interaction is placed at commit, so none is recall-only.
const (
	VariantCELogit             = "ce-logit"
	VariantCEScaled            = "ce-scaled"
	VariantNoRerankInstruction = "no-rerank-instruction"
	// VariantTauPrefix starts "tau=<τ>": the new-root threshold set to τ.
	VariantTauPrefix = "tau="
)

// Readings lists the scoring readings, with τ at the values around the
// paper's 8 that the doctor tries.
var Readings = []Variant{
	{Name: VariantCELogit, Switch: "ce_score", Doc: "s_ce is the reranker's logit (the paper's scale)"},
	{Name: VariantCEScaled, Switch: "ce_score", Doc: "s_ce is ce_scale × the reranker's probability"},
	{Name: VariantNoRerankInstruction, Switch: "rerank_instruction", Doc: "the reranker gets the bare input, without the instruction"},
	{Name: "tau=6", Switch: "tau", Doc: "new-root threshold τ = 6"},
	{Name: "tau=10", Switch: "tau", Doc: "new-root threshold τ = 10"},
}

// maxTau bounds τ in a "tau=" variant: beyond it every interaction is a
// root on any reranker's scale.
const maxTau = 1000

// ParseTau reads the τ of a "tau=<τ>" variant name; ok is false for any
// other name, err set when the value is not a finite number in [0, 1000].
func ParseTau(name string) (tau float64, ok bool, err error) {
	v, found := strings.CutPrefix(name, VariantTauPrefix)
	if !found {
		return 0, false, nil
	}
	tau, err = strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(tau) || tau < 0 || tau > maxTau {
		return 0, true, fmt.Errorf("arbormem: variant %q: τ must be a number in [0, %d]", name, maxTau)
	}
	return tau, true, nil
}

// IsReading reports whether variant is a scoring reading (Readings or any
// valid "tau=<τ>").
func IsReading(variant string) bool {
	if _, ok, err := ParseTau(variant); ok {
		return err == nil
	}
	for _, v := range Readings {
		if v.Name == variant {
			return true
		}
	}
	return false
}

func lookupVariant(name string) (Variant, bool) {
	for _, list := range [][]Variant{Variants, Readings} {
		for _, v := range list {
			if v.Name == name {
				return v, true
			}
		}
	}
	if _, ok, err := ParseTau(name); ok && err == nil {
		return Variant{Name: name, Switch: "tau", Doc: "new-root threshold " + name}, true
	}
	return Variant{}, false
}

func variantNames() string {
	var n []string
	for _, v := range Variants {
		n = append(n, v.Name)
	}
	for _, v := range Readings {
		if !strings.HasPrefix(v.Name, VariantTauPrefix) {
			n = append(n, v.Name)
		}
	}
	n = append(n, VariantTauPrefix+"<τ>")
	return strings.Join(n, ", ")
}

// RecallOnly reports whether variant can be answered from the reference
// instance's ingestion (passed as memory.Query.Variant). Unknown names and
// "" report false.
func RecallOnly(variant string) bool {
	v, ok := lookupVariant(variant)
	return ok && v.RecallOnly
}

// ApplyVariant turns off the component variant ablates in cfg, or sets the
// scoring reading it names (Readings, "tau=<τ>"); "" leaves cfg unchanged.
// Unknown names are errors.
func ApplyVariant(cfg *config.ArborMem, variant string) error {
	if variant == "" {
		return nil
	}
	if tau, ok, err := ParseTau(variant); ok {
		if err != nil {
			return err
		}
		cfg.Tau = tau
		return nil
	}
	v, ok := lookupVariant(variant)
	if !ok {
		return fmt.Errorf("arbormem: unknown variant %q (known: %s)", variant, variantNames())
	}
	switch v.Name {
	case VariantNoLocalization:
		cfg.Localization = false
	case VariantNoKeywordRouting:
		cfg.KeywordRouting = false
	case VariantNoAtomicFacts:
		cfg.AtomicFacts = false
	case VariantNoStructuredExtract:
		cfg.StructuredExtraction = false
	case VariantNoStructuredEvidence:
		cfg.StructuredEvidence = false
	case VariantCELogit:
		cfg.CEScore = CELogit
	case VariantCEScaled:
		cfg.CEScore = CEScaled
	case VariantNoRerankInstruction:
		cfg.RerankInstruction = "off"
	}
	return nil
}
