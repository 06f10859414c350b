package arbormem

// Paper appendix C.3, the component ablations and which of them are
// answered from the reference instance's ingestion.

import (
	"fmt"
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

func lookupVariant(name string) (Variant, bool) {
	for _, v := range Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

func variantNames() string {
	n := make([]string, len(Variants))
	for i, v := range Variants {
		n[i] = v.Name
	}
	return strings.Join(n, ", ")
}

// RecallOnly reports whether variant can be answered from the reference
// instance's ingestion (passed as memory.Query.Variant). Unknown names and
// "" report false.
func RecallOnly(variant string) bool {
	v, ok := lookupVariant(variant)
	return ok && v.RecallOnly
}

// ApplyVariant turns off the component variant ablates in cfg; "" leaves
// cfg unchanged. Unknown names are errors.
func ApplyVariant(cfg *config.ArborMem, variant string) error {
	if variant == "" {
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
	}
	return nil
}
