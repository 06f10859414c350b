package branchmemeval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/text"
)

func TestLoadEmbedded(t *testing.T) {
	eps, err := datasets.Load(context.Background(), Name, "", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 33 {
		t.Fatalf("%d episodes", len(eps))
	}
	inter, qs := 0, 0
	cats := map[string]int{}
	for _, ep := range eps {
		if ep.Benchmark != Name || ep.Latent == nil {
			t.Fatalf("episode %s: benchmark %q latent %v", ep.ID, ep.Benchmark, ep.Latent)
		}
		ids := map[string]bool{}
		var committed []string // texts a memory system would have seen
		for i, st := range ep.Steps {
			switch {
			case st.Interaction != nil:
				inter++
				in := st.Interaction
				if ids[in.ID] || in.Session != ep.ID || len(in.Turns) != 2 || in.Time.IsZero() {
					t.Fatalf("%s step %d: bad interaction %+v", ep.ID, i, in)
				}
				ids[in.ID] = true
				if ep.Latent.Branch[in.ID] == "" {
					t.Fatalf("%s: no latent branch for %s", ep.ID, in.ID)
				}
				committed = append(committed, in.Text())
			case st.Question != nil:
				qs++
				q := st.Question
				cats[q.Category]++
				if q.Canonical == nil || q.Canonical.User() != q.Text || ids[q.Canonical.ID] {
					t.Fatalf("%s: question %s canonical %+v", ep.ID, q.ID, q.Canonical)
				}
				ids[q.Canonical.ID] = true
				if q.Labels["family"] == "" || q.Gold == "" || q.Confounder == "" || q.Time.IsZero() || ep.Latent.Branch[q.ID] == "" {
					t.Fatalf("%s: question %+v", ep.ID, q)
				}
				// The online protocol: the gold is answerable from what was
				// committed before the question, never from the question.
				hay := text.NormalizeAnswer(strings.Join(committed, "\n"))
				if !text.ContainsAnswer(hay, text.NormalizeAnswer(q.Gold)) {
					t.Fatalf("%s: gold of %s not in the committed prefix", ep.ID, q.ID)
				}
				committed = append(committed, q.Canonical.Text())
			default:
				t.Fatalf("%s step %d is empty", ep.ID, i)
			}
		}
		// Latent labels never travel with the episode's serialised form.
		b, _ := json.Marshal(ep)
		if bytes.Contains(b, []byte(`"branch"`)) || bytes.Contains(b, []byte(`"b1"`)) {
			t.Fatalf("%s: latent labels leaked into the episode JSON", ep.ID)
		}
	}
	if inter != 1442 || qs != 100 {
		t.Fatalf("%d interactions, %d questions", inter, qs)
	}
	if cats["B1"] != 26 || cats["B2"] != 16 || cats["B3"] != 24 || cats["B4"] != 14 || cats["B5"] != 20 {
		t.Fatalf("categories %v", cats)
	}
}

func TestLoadPathAndFilter(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bme.json")
	if err := os.WriteFile(p, Shipped(), 0o644); err != nil {
		t.Fatal(err)
	}
	eps, err := Load(context.Background(), p, datasets.Options{Categories: []string{"B4"}})
	if err != nil {
		t.Fatal(err)
	}
	n, steps := 0, 0
	for _, ep := range eps {
		steps += len(ep.Steps)
		n += len(ep.Questions())
		for _, q := range ep.Questions() {
			if q.Category != "B4" {
				t.Fatalf("category %s kept", q.Category)
			}
		}
	}
	// Filtered questions stay in the dialogue as ordinary interactions.
	if n != 14 || steps != 1542 {
		t.Fatalf("%d questions, %d steps", n, steps)
	}
	if _, err := Load(context.Background(), p, datasets.Options{Categories: []string{"B9"}}); err == nil || !strings.Contains(err.Error(), `unknown category "B9"`) {
		t.Fatalf("unknown category: %v", err)
	}
	if _, err := Load(context.Background(), filepath.Join(dir, "missing.json"), datasets.Options{}); err == nil {
		t.Fatal("missing file accepted")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format": `), 0o644)
	if _, err := Load(context.Background(), bad, datasets.Options{}); err == nil || !strings.Contains(err.Error(), bad+": line 1 col 12") {
		t.Fatalf("bad file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, "", datasets.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	// Seeds: one real session cut down, and assorted broken fragments.
	full, err := Parse(Shipped(), "embedded")
	if err != nil {
		f.Fatal(err)
	}
	small := *full
	small.Sessions = full.Sessions[:1]
	small.Annotations.Sessions = full.Annotations.Sessions[:1]
	b, _ := small.Marshal()
	f.Add(b)
	f.Add([]byte(`{"format": "branchmemeval/v1", "seed": 1, "verbalizer": "t", "composition": {"families": [], "interactions": 0, "min_turns": 1, "max_turns": 1}, "annotations": {"sessions": []}, "sessions": []}`))
	f.Add([]byte(`{"format": "branchmemeval/v1", "sessions": [{"id": "s", "turns": [{}]}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := Parse(data, "fuzz.json")
		if err != nil {
			if pf != nil {
				t.Fatal("file returned with an error")
			}
			return
		}
		_ = Validate(pf)
		_ = ComputeStats(pf, wordCounter{}, "words")
		_, _ = Episodes(pf, nil)
	})
}

// fakeChat answers bme_verbalize prompts by echoing the draft turn with a
// small change, or by dropping everything when drop is set.
type fakeChat struct{ drop bool }

func (c fakeChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	p := req.Messages[0].Content
	user := between(p, "USER: ", "\n\nASSISTANT: ")
	asst := between(p, "\n\nASSISTANT: ", "\n\n### RULES")
	if c.drop {
		user, asst = "Hi.", "Hello."
	}
	b, _ := json.Marshal(map[string]string{"user": user + " (rewritten)", "assistant": asst})
	return llm.ChatResponse{Content: "```json\n" + string(b) + "\n```"}, nil
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}

func TestChatRewriter(t *testing.T) {
	f := shippedCopy(t)
	out, st, err := (&ChatRewriter{Client: fakeChat{}, Model: "fake"}).Rewrite(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rewritten != 1442 || st.Kept != 0 || out.Verbalizer != "chat:fake" {
		t.Fatalf("stats %+v verbalizer %q", st, out.Verbalizer)
	}
	for si, s := range out.Sessions {
		for ti, tu := range s.Turns {
			orig := f.Sessions[si].Turns[ti]
			if tu.Question != nil {
				if tu.User != orig.User || tu.Assistant != orig.Assistant {
					t.Fatalf("question turn %s was rewritten", tu.ID)
				}
			} else if !strings.HasSuffix(tu.User, "(rewritten)") {
				t.Fatalf("turn %s not rewritten", tu.ID)
			}
		}
	}
	// A model that drops the planned values is refused turn by turn; the
	// template text stays and the set remains valid.
	_, st, err = (&ChatRewriter{Client: fakeChat{drop: true}, Model: "fake"}).Rewrite(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept == 0 || st.Rewritten == 0 || !strings.Contains(strings.Join(st.Errors, "\n"), "dropped planned value") {
		t.Fatalf("stats %+v", st)
	}
	if _, _, err := (&ChatRewriter{}).Rewrite(context.Background(), f); err == nil {
		t.Fatal("no client accepted")
	}
}
