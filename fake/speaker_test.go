package fake

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// fixture is the fixed input every prompt is rendered with for its golden
// reply: one interaction with a value, a list, an event and a state.
var fixture = map[string]any{
	"Time": "2024-03-15 10:00",
	"Exchange": "User: I adopted a beagle named Pip last week, and I moved to Porto in May. Can you suggest three names for his toys?\n" +
		"Assistant: Congratulations on Pip! Here are three ideas:\n1) Biscuit — a soft plush\n2) Rocket — a rubber ball\n3) Noodle — a rope toy",
	"User":            "I adopted a beagle named Pip last week, and I moved to Porto in May. Can you suggest three names for his toys?",
	"Assistant":       "Congratulations on Pip! Here are three ideas:\n1) Biscuit — a soft plush\n2) Rocket — a rubber ball\n3) Noodle — a rope toy",
	"Ontology":        ops.OntologyText(),
	"PrevPathSummary": "(none: this interaction starts a new branch)",
	"CurrentSummary":  "User adopted a beagle named Pip last week, and User moved to Porto in May.",
	"PairsJSON": `[{"pair_id": "0", "attribute_tag": "1.0", "old_fact": "User lives in Lisbon.", "new_fact": "User now lives in Porto."},` +
		`{"pair_id": "1", "attribute_tag": "3.1", "old_fact": "User has a cat named Tom.", "new_fact": "User adopted a beagle named Pip."}]`,
	"Query":    "What is the name of the dog I adopted?",
	"Question": "What is the name of the dog I adopted?",
	"Now":      "2024-03-20 09:00",
	"Evidence": []map[string]any{
		{"N": 1, "Label": "conversation", "Time": "2024-03-15 10:00", "Text": "User: I adopted a beagle named Pip last week.\nAssistant: Congratulations on Pip!"},
		{"N": 2, "Label": "fact", "Time": "", "Text": "User moved to Porto in May."},
	},
	"Directives": "### ANSWER DIRECTIVES\n- Reply with the value asked for.",
	"Session":    "s1",
	"Previous":   "User: I live in Lisbon and work at Tideway Labs.",
	"Interactions": []map[string]string{
		{"Time": "2024-03-15 10:00", "Text": "user: I adopted a beagle named Pip last week.\nassistant: Congratulations on Pip!"},
		{"Time": "2024-03-16 11:30", "Text": "user: I moved to Porto in May 2023.\nassistant: Porto is lovely."},
	},
	"Topic": "pet care", "Anchor": "Pip", "Act": "state a new value", "Keep": []string{"Pip"}, "KeepList": false, "Words": 4,
	"Date":       "2024/03/20 (Wed) 09:00",
	"Gold":       "Pip",
	"Response":   "Your beagle is called Pip.",
	"RubricItem": "LLM response should state: the dog is named Pip",
	"First":      "User adopted a beagle named Pip",
	"Second":     "The user adopted Pip, a beagle",
}

func newSpeaker(t testing.TB, opts Options) *Speaker {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ask(s *Speaker, msgs ...openaifake.Message) string {
	return s.Reply(openaifake.Request{Messages: msgs})
}

func user(text string) openaifake.Message { return openaifake.Message{Role: "user", Content: text} }

// TestRegistryCoversEveryPrompt fails for a prompt of pkg/prompt that the
// speaker does not answer, and for a registry entry naming no prompt.
func TestRegistryCoversEveryPrompt(t *testing.T) {
	names := prompt.Default().Names()
	for _, n := range names {
		if _, ok := lookup(n); !ok {
			t.Errorf("prompt %s has no responder in the speaker's registry", n)
		}
	}
	for n := range registry {
		if !slices.Contains(names, n) {
			t.Errorf("registry entry %s names no prompt", n)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != strings.TrimSuffix(string(want), "\n") {
		t.Errorf("%s: reply differs from %s\ngot:  %s\nwant: %s", name, path, got, want)
	}
}

// TestGoldenReplies renders every chat prompt on the fixed input and
// compares the reply with its golden file; every prompt is recognised as
// itself, and every JSON reply parses into the prompt's shape.
func TestGoldenReplies(t *testing.T) {
	ps := prompt.Default()
	s := newSpeaker(t, Options{})
	for _, name := range Covered() {
		r := registry[name]
		if r.chat == nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			text, err := ps.Render(name, fixture)
			if err != nil {
				t.Fatal(err)
			}
			got, shape, ok := s.replyTo(name, text)
			if !ok {
				t.Fatalf("%s was not recognised", name)
			}
			if shape != 0 && !json.Valid([]byte(got)) {
				t.Errorf("%s: reply is not JSON: %s", name, got)
			}
			golden(t, name, got)
		})
	}
	if n := s.Stats()[Unrecognised].Replies; n != 0 {
		t.Errorf("%d requests unrecognised", n)
	}
}

// replyTo asks s with text as one user message and reports which prompt
// answered.
func (s *Speaker) replyTo(want, text string) (string, byte, bool) {
	before := s.Stats()[want].Replies
	got := ask(s, user(text))
	return got, registry[want].shape, s.Stats()[want].Replies == before+1
}

// TestPathEvolutionUsesNodeMetadata checks that a new branch's topic is
// derived, as offline, from the interaction node_metadata was asked about.
func TestPathEvolutionUsesNodeMetadata(t *testing.T) {
	ps := prompt.Default()
	s := newSpeaker(t, Options{})
	in := parseExchange(fixture["Exchange"].(string), parseTime(fixture["Time"].(string)))
	meta, _ := rules.Ops{}.NodeMetadata(context.Background(), in)
	want, _ := rules.Ops{}.PathSummary(context.Background(), "", meta, in)

	text, _ := ps.Render("node_metadata", fixture)
	ask(s, user(text))
	data := map[string]any{"PrevPathSummary": "(none: this interaction starts a new branch)", "CurrentSummary": meta.Summary}
	text, _ = ps.Render("path_evolution", data)
	if got := ask(s, user(text)); got != want {
		t.Errorf("path_evolution: %q, want the offline %q", got, want)
	}
}

// TestLayoutAnswer builds a real ArborMem instance offline, renders its
// answer messages for a question and checks the speaker reads the evidence
// back out of them and answers with the value asked for (item times are not
// all shown in the messages, so the extractive answer may rank differently
// than on the bundle itself).
func TestLayoutAnswer(t *testing.T) {
	ctx := context.Background()
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := arbormem.New(cfg.ArborMem, arbormem.Deps{Embed: local.NewEmbedder(256), Rerank: local.NewReranker(), Tokens: tokens.Default()})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 3, 15, 10, 0, 0, 0, time.UTC)
	for i, turn := range [][2]string{
		{"I adopted a beagle named Pip last week.", "Congratulations on Pip!"},
		{"Can you suggest three names for Pip's toys?", "Here are three ideas:\n1) Biscuit\n2) Rocket\n3) Noodle"},
	} {
		in := dialog.Interaction{ID: "i" + string(rune('1'+i)), Time: at.Add(time.Duration(i) * time.Hour),
			Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: turn[0]}, {Role: dialog.RoleAssistant, Content: turn[1]}}}
		if err := sys.Commit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	s := newSpeaker(t, Options{})
	for _, tc := range []struct{ question, want string }{
		{"What is the name of the beagle I adopted?", "Pip"},
		{"What was the second toy name you suggested?", "Rocket"},
	} {
		question := tc.question
		q := memory.Query{ID: "q", Text: question, Time: at.Add(5 * time.Hour), Budget: 4096, Benchmark: "branchmemeval"}
		b, err := sys.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := sys.Render(q, b)
		if err != nil {
			t.Fatal(err)
		}
		var req []openaifake.Message
		for _, m := range msgs {
			req = append(req, openaifake.Message{Role: m.Role, Content: m.Content})
		}
		got := ask(s, req...)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: speaker answered %q, want it to name %q (the extractive answer of the bundle is %q)", question, got, tc.want, answer.Extract(question, b.Items))
		}
		if st := s.Stats()["system_anchor"]; st.Replies == 0 {
			t.Errorf("%q: layout not recognised", question)
		}
	}
}

// TestRerankUnwrapsInstruction checks that a query wrapped in the reranker
// instruction scores as the plain query does with the offline reranker.
func TestRerankUnwrapsInstruction(t *testing.T) {
	s := newSpeaker(t, Options{})
	wrapped, err := prompt.Default().Render("reranker_instruction", struct{ Query string }{"beagle named Pip"})
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"User adopted a beagle named Pip.", "User moved to Porto.", "Pip chews a rope toy."}
	want, _ := local.NewReranker().Rerank(context.Background(), "beagle named Pip", docs)
	if got := s.Rerank(wrapped, docs); !slices.Equal(got, want) {
		t.Errorf("wrapped query scores %v, plain %v", got, want)
	}
	vec, _ := local.NewEmbedder(1024).Embed(context.Background(), docs)
	if got := s.Embed(docs); !slices.EqualFunc(got, vec, slices.Equal[[]float32]) {
		t.Error("embeddings differ from the offline embedder's")
	}
	if got := s.Embed([]string{"the of and ..."}); len(got) != 1 || got[0][0] != 1 {
		t.Errorf("a featureless text is embedded as %v, want the first unit vector", got[0][:3])
	}
}

// TestOverriddenPromptUnrecognised checks that a prompt rendered from an
// overridden template is reported as unrecognised and gets the fallback.
func TestOverriddenPromptUnrecognised(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "node_metadata.tmpl"), []byte("Summarise this exchange as JSON {\"summary\", \"entities\"}.\n{{.Exchange}}"), 0o644)
	ps, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := ps.Render("node_metadata", fixture)
	s := newSpeaker(t, Options{Fallback: func(openaifake.Request) string { return "unrecognised" }})
	if got := ask(s, user(text)); got != "unrecognised" {
		t.Errorf("overridden node_metadata answered %q", got)
	}
	if st := s.Stats(); st[Unrecognised].Replies != 1 || st["node_metadata"].Replies != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestParseExchangeRoundTrip checks that an interaction shown as arbormem
// and dialog show it is read back with its turns.
func TestParseExchangeRoundTrip(t *testing.T) {
	at := time.Date(2024, 3, 15, 10, 0, 0, 0, time.UTC)
	cases := []dialog.Interaction{
		{Time: at, Turns: []dialog.Turn{{Role: "user", Content: "I moved to Porto.\nNote: it rains."}, {Role: "assistant", Content: "Nice!\n1) Cafe\n2) Park"}}},
		{Time: at, Turns: []dialog.Turn{{Role: "user", Speaker: "Caroline", Content: "I went to the LGBTQ support group."}, {Role: "assistant", Speaker: "Melanie", Content: "That's great!"}}},
		{Time: at, Turns: []dialog.Turn{{Role: "user", Content: "Only me."}}},
	}
	for _, in := range cases {
		got := parseExchange(turnLines(in), parseTime(dialog.FormatTime(in.Time)))
		if !got.Time.Equal(in.Time) || !slices.Equal(got.Turns, in.Turns) {
			t.Errorf("round trip of %+v: %+v", in.Turns, got.Turns)
		}
	}
}

// turnLines is arbormem's rendering of an interaction's turns.
func turnLines(in dialog.Interaction) string {
	var lines []string
	for _, t := range in.Turns {
		name := t.Speaker
		if name == "" {
			name = "User"
			if t.Role == dialog.RoleAssistant {
				name = "Assistant"
			}
		}
		lines = append(lines, name+": "+t.Content)
	}
	return strings.Join(lines, "\n")
}

func FuzzParseExchange(f *testing.F) {
	f.Add("User: hi\nAssistant: hello", "2024-03-15 10:00")
	f.Add("Caroline: a\nMelanie: b\nNote: c", "unknown")
	f.Add("\n\n: \nUser:", "")
	f.Fuzz(func(t *testing.T, text, at string) {
		in := parseExchange(text, parseTime(at))
		for _, turn := range in.Turns {
			if turn.Role != dialog.RoleUser && turn.Role != dialog.RoleAssistant {
				t.Fatalf("turn with role %q", turn.Role)
			}
		}
	})
}

func FuzzParseSharedEvidence(f *testing.F) {
	f.Add("\n\n(1) conversation | 2024-03-15 10:00\nUser: hi\n\n(2) fact\nUser likes tea.")
	f.Add("(2) x\n(1) y")
	f.Fuzz(func(t *testing.T, text string) {
		for _, it := range parseSharedEvidence(text) {
			if it.Channel == "" {
				t.Fatalf("item without channel: %+v", it)
			}
		}
	})
}

// TestReplySchemas checks that every JSON reply has exactly the keys its
// prompt's output schema lists (pkg/prompt/templates).
func TestReplySchemas(t *testing.T) {
	schemas := map[string]string{
		"node_metadata":                "entities summary",
		"atomic_fact_miner":            "attribute_tag entities fact",
		"assistant_artifact_miner":     "artifact_type entities evidence_text item_text ordinal topic",
		"event_miner":                  "canonical_action canonical_object countable date_text entities event_type evidence_text is_negated normalized_date object quantity subject unit value",
		"state_slot_miner":             "attribute_tag entities evidence_text key value",
		"fact_collision_auditor_batch": "pair_id verdict",
		"bme_verbalize":                "assistant user",
		"judge_locomo":                 "label",
		"judge_beam_rubric":            "reason score",
	}
	ps := prompt.Default()
	s := newSpeaker(t, Options{})
	for name, want := range schemas {
		text, err := ps.Render(name, fixture)
		if err != nil {
			t.Fatal(err)
		}
		reply := ask(s, user(text))
		var objs []map[string]any
		if registry[name].shape == '[' {
			if err := json.Unmarshal([]byte(reply), &objs); err != nil || len(objs) == 0 {
				t.Errorf("%s: %v, %d objects in %s", name, err, len(objs), reply)
			}
		} else {
			var o map[string]any
			if err := json.Unmarshal([]byte(reply), &o); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			objs = append(objs, o)
		}
		for _, o := range objs {
			var keys []string
			for k := range o {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if got := strings.Join(keys, " "); got != want {
				t.Errorf("%s: keys %q, schema %q", name, got, want)
			}
		}
	}
}

// FuzzMatchRoundTrip renders node_metadata with arbitrary fields and reads
// them back; a field may not contain the fixed text that follows it.
func FuzzMatchRoundTrip(f *testing.F) {
	f.Add("2024-03-15 10:00", "User: hi\nAssistant: hello")
	f.Add("unknown", "")
	f.Add("x", "Exchange (y):\nUser: z")
	ps := prompt.Default()
	m, err := compile(ps, "node_metadata")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, at, exchange string) {
		if strings.Contains(at, "):\n") {
			return
		}
		text, err := ps.Render("node_metadata", map[string]string{"Time": at, "Exchange": exchange})
		if err != nil {
			return
		}
		got, ok := m.match(text)
		if !ok {
			t.Fatalf("rendering not recognised: %q", text)
		}
		if got["Time"] != at || strings.TrimRight(got["Exchange"], " \t\r\n") != strings.TrimRight(exchange, " \t\r\n") {
			t.Fatalf("read back %q, %q from %q, %q", got["Time"], got["Exchange"], at, exchange)
		}
	})
}

// TestMem0Prompts checks that Mem0's own prompts are answered as the plain
// fake answers them, and counted apart.
func TestMem0Prompts(t *testing.T) {
	s := newSpeaker(t, Options{})
	req := openaifake.Request{Messages: []openaifake.Message{
		{Role: "system", Content: "You are a Personal Information Organizer, specialized in accurately storing facts."},
		{Role: "user", Content: "Input:\nuser: I moved to Porto in May."},
	}}
	want, ok := openaifake.Mem0Reply(req)
	if !ok {
		t.Fatal("openaifake does not recognise the Mem0 prompt")
	}
	if got, ok := s.Speak(req); !ok || got != want {
		t.Errorf("Speak: %q, %v; want %q", got, ok, want)
	}
	if st := s.Stats(); st[Mem0].Replies != 1 || st[Unrecognised].Replies != 0 {
		t.Errorf("stats %+v", st)
	}
}
