package config

import (
	"testing"
)

// paperValues are the settings the paper states, with the line of
// ../shared/spec/arbormem-paper.tex that states each. A default that drifts
// from the paper fails here (docs/FIDELITY.md lists every setting the paper
// leaves open instead).
var paperValues = []struct {
	key, line string
	got       func(*Config) float64
	want      float64
}{
	{"arbormem.semantic_candidates", "P:810", func(c *Config) float64 { return float64(c.ArborMem.SemanticCandidates) }, 20},
	{"arbormem.topic_candidates", "P:813", func(c *Config) float64 { return float64(c.ArborMem.TopicCandidates) }, 12},
	{"arbormem.tau", "P:819", func(c *Config) float64 { return c.ArborMem.Tau }, 8.0},
	{"arbormem.keyword_first", "P:822", func(c *Config) float64 { return c.ArborMem.KeywordFirst }, 1.0},
	{"arbormem.keyword_next", "P:822", func(c *Config) float64 { return c.ArborMem.KeywordNext }, 0.5},
	{"arbormem.keyword_max_df", "P:823", func(c *Config) float64 { return c.ArborMem.KeywordMaxDF }, 0.4},
	{"arbormem.recency_max", "P:826", func(c *Config) float64 { return c.ArborMem.RecencyMax }, 1.0},
	{"arbormem.topic_weight", "P:829", func(c *Config) float64 { return c.ArborMem.TopicWeight }, 8.0},
	{"arbormem.topic_match_min", "P:829", func(c *Config) float64 { return c.ArborMem.TopicMatchMin }, 0.5},
	{"arbormem.topic_penalty", "P:829", func(c *Config) float64 { return c.ArborMem.TopicPenalty }, -6.0},
	{"arbormem.raw_tail", "P:836", func(c *Config) float64 { return float64(c.ArborMem.RawTail) }, 4},
	{"arbormem.branch_budget", "P:839", func(c *Config) float64 { return float64(c.ArborMem.BranchBudget) }, 16384},
	{"arbormem.max_facts", "P:845", func(c *Config) float64 { return float64(c.ArborMem.MaxFacts) }, 10},
	{"arbormem.fact_min_sim", "P:845", func(c *Config) float64 { return c.ArborMem.FactMinSim }, 0.4},
	{"arbormem.supplemental_budget", "P:852", func(c *Config) float64 { return float64(c.ArborMem.SupplementalBudget) }, 0},
	// "Atomic facts and structured records are retrieved independently and
	// appended without replacing the selected trajectory" (P:864-866):
	// nothing is reserved for them before the trajectory.
	{"arbormem.evidence_reserve", "P:865", func(c *Config) float64 { return c.ArborMem.EvidenceReserve }, 0},
	{"answer.budget", "P:1251", func(c *Config) float64 { return float64(c.Answer.Budget) }, 30968},
	{"answer.max_tokens", "P:1256", func(c *Config) float64 { return float64(c.Answer.MaxTokens) }, 512},
	{"answer.max_context", "P:1246", func(c *Config) float64 { return float64(c.Answer.MaxContext) }, 40960},
	{"baselines.bm25_units", "P:1334", func(c *Config) float64 { return float64(c.Baselines.BM25Units) }, 50},
	{"baselines.bm25_chunks_beam", "P:1336", func(c *Config) float64 { return float64(c.Baselines.BM25ChunksBEAM) }, 32},
	{"baselines.summary_every", "P:1343", func(c *Config) float64 { return float64(c.Baselines.SummaryEvery) }, 8},
	{"bridges.top_k", "P:1261", func(c *Config) float64 { return float64(c.Bridges.TopK) }, 50},
	{"bridges.graphiti_update_every", "P:1349", func(c *Config) float64 { return float64(c.Bridges.GraphitiUpdateEvery) }, 8},
	{"bridges.licomemory.options.chunk_tokens", "P:1364", func(c *Config) float64 {
		n, _ := c.Bridges.LiCoMemory.Options["chunk_tokens"].(int)
		return float64(n)
	}, 8000},
}

// TestPaperDefaults checks every setting the paper states, in the embedded
// default and in the paper's own setup (configs/a800.yaml), and that the
// reference configuration has every component switched on.
func TestPaperDefaults(t *testing.T) {
	eff, err := Load("../../configs/efficiency.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if eff.ArborMem.Prefetch || eff.Run.Workers != 1 {
		t.Errorf("configs/efficiency.yaml: prefetch %v, workers %d; the paper's efficiency run is sequential (P:586)", eff.ArborMem.Prefetch, eff.Run.Workers)
	}
	for _, file := range []string{"", "../../configs/a800.yaml"} {
		c, err := Load(file, nil, nil)
		if err != nil {
			t.Fatalf("load %q: %v", file, err)
		}
		for _, p := range paperValues {
			if got := p.got(c); got != p.want {
				t.Errorf("%s (config %q): %v, but the paper (%s) states %v", p.key, file, got, p.line, p.want)
			}
		}
		// P:1282-1285: one answer template for every system.
		if c.Answer.Template != "paper" {
			t.Errorf("config %q: answer.template %q, but the paper (P:1282-1285) gives every system the same answer template (paper)", file, c.Answer.Template)
		}
		// P:586, P:1420, P:1484: the efficiency run is sequential; prefetch
		// stays an accuracy-run option of this config only.
		seq := *c
		seq.Sequential()
		if seq.ArborMem.Prefetch || seq.Run.Workers != 1 || seq.Cache.Enabled {
			t.Errorf("config %q: the efficiency run (P:586) is not sequential: prefetch %v, workers %d, cache %v", file, seq.ArborMem.Prefetch, seq.Run.Workers, seq.Cache.Enabled)
		}
		a := c.ArborMem
		if !a.Localization || !a.KeywordRouting || !a.AtomicFacts || !a.StructuredExtraction || !a.StructuredEvidence {
			t.Errorf("config %q: the reference configuration enables every component (P:1373-1376): %+v", file, a)
		}
	}
}
