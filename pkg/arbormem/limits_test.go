package arbormem

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// The caps the paper does not state reach both the rules and the chat
// operations from their config keys (docs/FIDELITY.md), and bind.
func TestCapsFromConfig(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		c.MaxFactsPerTurn, c.MaxEntities, c.PathSummaryChars = 1, 2, 30
	})
	in := inter("t1", "My sister Marta lives in Porto. My brother Tiago lives in Lisbon. I collect vintage cameras and I run every Sunday with Ana, Rui and Joana.",
		"Noted: Marta in Porto, Tiago in Lisbon, cameras, Sunday runs with Ana, Rui and Joana.")
	ctx := context.Background()
	fs, err := s.rules.Facts(ctx, in)
	if err != nil || len(fs) != 1 {
		t.Errorf("facts with max_facts_per_turn 1: %d (%v)", len(fs), err)
	}
	meta, err := s.rules.NodeMetadata(ctx, in)
	if err != nil || len(meta.Entities) > 2 {
		t.Errorf("entities with max_entities 2: %v (%v)", meta.Entities, err)
	}
	ps, err := s.rules.PathSummary(ctx, "", meta, in)
	if err != nil || utf8.RuneCountInString(ps) > 30 {
		t.Errorf("path summary with path_summary_chars 30: %q (%v)", ps, err)
	}

	// The chat operations New builds get the same caps.
	srv := openaifake.New(openaifake.Options{Reply: func(req openaifake.Request) string {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "path") {
			return "Topic: " + strings.Repeat("family ", 20) + "| Progress: many moves"
		}
		return `[{"fact": "Marta lives in Porto.", "tag": "location"}, {"fact": "Tiago lives in Lisbon.", "tag": "location"}]`
	}})
	defer srv.Close()
	chat := llm.NewChatClient(config.Endpoint{URL: srv.URL, Model: "fake-model"}, llm.NewHTTPClient())
	cs := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		c.MaxFactsPerTurn, c.MaxEntities, c.PathSummaryChars = 1, 2, 30
		d.Chat = chat
	})
	c, ok := cs.ext.(*chatOps)
	if !ok {
		t.Fatalf("extractor %T, want the chat operations", cs.ext)
	}
	if got, err := c.Facts(ctx, in); err != nil || len(got) != 1 {
		t.Errorf("chat facts with max_facts_per_turn 1: %d (%v)", len(got), err)
	}
	if got, err := c.PathSummary(ctx, "", meta, dialog.Interaction{}); err != nil || utf8.RuneCountInString(got) > 30 {
		t.Errorf("chat path summary with path_summary_chars 30: %q (%v)", got, err)
	}
}
