package fake

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// TestVaryKinds checks each kind of variation of a JSON reply: which ones
// pkg/jsonx reads back (all but single quotes; a truncation only when a
// complete element survives) and that the value survives where it should.
func TestVaryKinds(t *testing.T) {
	const reply = `[{"fact": "User moved to Porto.", "attribute_tag": "1.0", "entities": ["Porto"]}, {"fact": "User adopted Pip.", "attribute_tag": "3.1", "entities": []}]`
	seen := map[string]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		got, kind := vary(reply, '[', 0, rng)
		seen[kind] = true
		ok := parseable(got, '[')
		switch kind {
		case "single-quotes":
			if ok {
				t.Errorf("single quotes parsed: %s", got)
			}
		case "truncate":
			if got == reply || !strings.HasPrefix(reply, got) {
				t.Errorf("truncation %q is not a prefix of the reply", got)
			}
		default:
			if !ok {
				t.Errorf("%s: not parseable: %s", kind, got)
			}
			if !strings.Contains(got, "Porto") || !strings.Contains(got, "Pip") {
				t.Errorf("%s lost a value: %s", kind, got)
			}
		}
	}
	for _, k := range Noise {
		if !seen[k] {
			t.Errorf("kind %s never drawn in 200 seeds", k)
		}
	}
	if got, kind := vary("Topic: pets | Progress: named Pip", 0, 0, rand.New(rand.NewPCG(1, 1))); kind != "reasoning" || !strings.HasSuffix(got, "Topic: pets | Progress: named Pip") {
		t.Errorf("text reply varied as %s: %q", kind, got)
	}
}

// TestTruncateAtMaxTokens checks that a truncation pads a reasoning block so
// that the fake's own max_tokens cut lands inside the JSON.
func TestTruncateAtMaxTokens(t *testing.T) {
	const reply = `[{"fact": "User moved to Porto.", "attribute_tag": "1.0"}, {"fact": "User adopted Pip.", "attribute_tag": "3.1"}]`
	for seed := uint64(0); seed < 400; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		got, kind := vary(reply, '[', 64, rng)
		if kind != "truncate" {
			continue
		}
		vis := visible(got, 64)
		i := strings.Index(vis, "</think>")
		if i < 0 || len(openaifake.Tokens(got)) <= 64 {
			t.Fatalf("truncation did not exceed max_tokens: %q", got)
		}
		tail := strings.TrimSpace(vis[i+len("</think>"):])
		if tail == "" || tail == reply || !strings.HasPrefix(reply, tail) {
			t.Errorf("visible JSON %q is not a proper prefix of the reply", tail)
		}
		return
	}
	t.Fatal("no truncation drawn")
}

// TestNoiseRateAndSeed checks the share of varied replies and that the same
// seed varies the same requests the same way.
func TestNoiseRateAndSeed(t *testing.T) {
	ps := prompt.Default()
	a := newSpeaker(t, Options{Noise: 0.2, Seed: 7})
	b := newSpeaker(t, Options{Noise: 0.2, Seed: 7})
	n, varied := 400, 0
	for i := range n {
		data := map[string]any{"Ontology": "", "Query": "What did I buy on day " + string(rune('a'+i%26)) + strings.Repeat("!", i/26) + "?"}
		text, _ := ps.Render("attribute_tag_predictor", data)
		ra, rb := ask(a, user(text)), ask(b, user(text))
		if ra != rb {
			t.Fatalf("same seed, different replies: %q vs %q", ra, rb)
		}
	}
	for _, c := range a.Stats()["attribute_tag_predictor"].Noisy {
		varied += c
	}
	if varied < n/10 || varied > 3*n/10 {
		t.Errorf("%d of %d replies varied at rate 0.2", varied, n)
	}
}
