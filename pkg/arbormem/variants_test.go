package arbormem

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

func TestApplyVariant(t *testing.T) {
	for _, v := range Variants {
		c := config.DefaultArborMem()
		if err := ApplyVariant(&c, v.Name); err != nil {
			t.Fatal(err)
		}
		off := map[string]bool{"localization": !c.Localization, "keyword_routing": !c.KeywordRouting, "atomic_facts": !c.AtomicFacts,
			"structured_extraction": !c.StructuredExtraction, "structured_evidence": !c.StructuredEvidence}
		for sw, isOff := range off {
			if isOff != (sw == v.Switch) {
				t.Errorf("%s: switch %s off=%v", v.Name, sw, isOff)
			}
		}
	}
	c := config.DefaultArborMem()
	if err := ApplyVariant(&c, "no-such-thing"); err == nil {
		t.Error("unknown variant accepted")
	}
	if err := ApplyVariant(&c, ""); err != nil || c != config.DefaultArborMem() {
		t.Error("the empty variant must change nothing")
	}
	want := map[string]bool{VariantNoLocalization: true, VariantNoAtomicFacts: true, VariantNoStructuredEvidence: true,
		VariantNoKeywordRouting: false, VariantNoStructuredExtract: false, "": false, "bogus": false}
	for name, ro := range want {
		if RecallOnly(name) != ro {
			t.Errorf("RecallOnly(%q) = %v, want %v", name, !ro, ro)
		}
	}
}

// TestRecallOnlyVariantsMatchConstruction: a recall-only variant answered
// from the reference instance gives exactly the bundle of an instance built
// with the switch off — the claim that lets a runner share ingestion.
func TestRecallOnlyVariantsMatchConstruction(t *testing.T) {
	conv := memorytest.Conversation()
	// The content routing (content_returns) moves "Update on the trip: …"
	// (m-10) under the Lisbon thread, where it belongs. The supplemental
	// fill, which no-localization keeps, caps terms by their node df, and
	// df reads the nodes' summaries, which follow the forest: so a
	// recall-only no-localization equals a built one only while the cap
	// does not move. This test pins the forest it was written for.
	pin := func(c *config.ArborMem) { c.ContentReturns = "off" }
	ref := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Routing = ""; pin(c) })
	mustCommit(t, ref, conv...)
	for _, v := range Variants {
		if !v.RecallOnly {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			built := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
				d.Routing = ""
				pin(c)
				if err := ApplyVariant(c, v.Name); err != nil {
					t.Fatal(err)
				}
			})
			mustCommit(t, built, conv...)
			differs := false
			for _, q := range persistQueries {
				for _, budget := range []int{256, 2048, 30968} {
					viaQuery := mustRecall(t, ref, memory.Query{ID: "q", Text: q, Budget: budget, Variant: v.Name})
					viaBuild := mustRecall(t, built, memory.Query{ID: "q", Text: q, Budget: budget})
					if !reflect.DeepEqual(viaQuery.Items, viaBuild.Items) {
						t.Errorf("%q at %d: per-query variant and built variant differ:\n%+v\n%+v", q, budget, viaQuery.Items, viaBuild.Items)
					}
					if !reflect.DeepEqual(viaQuery.Items, mustRecall(t, ref, memory.Query{ID: "q", Text: q, Budget: budget}).Items) {
						differs = true
					}
				}
			}
			if !differs {
				t.Errorf("variant %s changed no bundle at all", v.Name)
			}
		})
	}
}

func TestCommitTimeVariantRejectedPerQuery(t *testing.T) {
	s := newTestSystem(t)
	mustCommit(t, s, inter("a", "hello", "hi"))
	for _, v := range []string{VariantNoKeywordRouting, VariantNoStructuredExtract, "bogus"} {
		if _, err := s.Recall(t.Context(), memory.Query{Text: "hello", Budget: 100, Variant: v}); err == nil {
			t.Errorf("variant %q accepted per query", v)
		}
	}
}

func TestNoLocalizationKeepsGlobalEvidence(t *testing.T) {
	s := newTestSystem(t)
	mustCommit(t, s, memorytest.Conversation()...)
	b := mustRecall(t, s, memory.Query{Text: "What is the current budget for the Lisbon trip?", Budget: 30968, Variant: VariantNoLocalization})
	if b.Trace.Localized || b.Trace.Parent != "" || len(itemsOf(b, memory.ChannelLocal)) != 0 {
		t.Errorf("no-localization still localized: %+v", b.Trace)
	}
	if len(itemsOf(b, memory.ChannelFact)) == 0 {
		t.Error("no-localization must keep globally retrieved facts")
	}
}

func TestReadingVariants(t *testing.T) {
	cases := map[string]func(c config.ArborMem) bool{
		VariantCELogit:             func(c config.ArborMem) bool { return c.CEScore == CELogit },
		VariantCEScaled:            func(c config.ArborMem) bool { return c.CEScore == CEScaled },
		VariantNoRerankInstruction: func(c config.ArborMem) bool { return c.RerankInstruction == "off" },
		"tau=6":                    func(c config.ArborMem) bool { return c.Tau == 6 },
		"tau=10.5":                 func(c config.ArborMem) bool { return c.Tau == 10.5 },
	}
	for name, ok := range cases {
		c := config.DefaultArborMem()
		if err := ApplyVariant(&c, name); err != nil || !ok(c) {
			t.Errorf("%s: %v %+v", name, err, c)
		}
		if RecallOnly(name) {
			t.Errorf("%s changes commits and must not be recall-only", name)
		}
	}
	for _, bad := range []string{"tau=", "tau=x", "tau=-1", "tau=NaN", "tau=1e9", "tau=Inf"} {
		c := config.DefaultArborMem()
		if err := ApplyVariant(&c, bad); err == nil {
			t.Errorf("%q accepted (τ %v)", bad, c.Tau)
		}
	}
}

func FuzzParseTau(f *testing.F) {
	for _, s := range []string{"tau=8", "tau=6.5", "tau=", "tau=-0", "tau=1e3", "tau=0x10", "ce-logit", "tau=+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tau, ok, err := ParseTau(name)
		if !ok {
			if err != nil || strings.HasPrefix(name, VariantTauPrefix) {
				t.Fatalf("%q: ok=false err=%v", name, err)
			}
			return
		}
		if err == nil && (math.IsNaN(tau) || tau < 0 || tau > maxTau) {
			t.Fatalf("%q: τ %v accepted", name, tau)
		}
		c := config.DefaultArborMem()
		if aerr := ApplyVariant(&c, name); (aerr == nil) != (err == nil) || (err == nil && c.Tau != tau) {
			t.Fatalf("%q: ApplyVariant %v, ParseTau %v %v", name, aerr, tau, err)
		}
	})
}
