package locomo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/datasets/internal/loadtest"
)

const fixture = "testdata/locomo10.json"

func load(t *testing.T, cats ...string) map[string]datasets.Episode {
	t.Helper()
	eps, err := datasets.Load(context.Background(), Name, fixture, datasets.Options{Categories: cats})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]datasets.Episode{}
	var order []string
	for _, e := range eps {
		m[e.ID] = e
		order = append(order, e.ID)
	}
	if !reflect.DeepEqual(order, []string{"conv-26", "conv-30"}) {
		t.Fatalf("episodes %q, want file order", order)
	}
	return m
}

func questions(ep datasets.Episode) map[string]*datasets.Question {
	m := map[string]*datasets.Question{}
	for _, q := range ep.Questions() {
		m[q.ID] = q
	}
	return m
}

func TestGolden(t *testing.T) {
	eps, err := Load(context.Background(), fixture, datasets.Options{Categories: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	loadtest.Golden(t, "testdata/golden/locomo10.golden.json", loadtest.JSON(t, eps))
}

func TestSessionsAndInteractions(t *testing.T) {
	ep := load(t)["conv-26"]
	var got []string
	for _, in := range loadtest.Interactions(ep) {
		var parts []string
		for _, tr := range in.Turns {
			parts = append(parts, tr.ID+"/"+tr.Role+"/"+tr.Speaker)
		}
		got = append(got, in.Session+" "+in.ID+" "+in.Time.Format("2006-01-02 15:04")+" "+strings.Join(parts, ","))
	}
	// Sessions come from session_<N> keys in numeric order (10 after 2),
	// the empty session_3 and the orphan date keys 11 and 12 add nothing,
	// and session_1's odd third turn is an interaction of its own.
	want := []string{
		"session_1 D1:1 2023-05-08 13:56 D1:1/user/Caroline,D1:2/assistant/Melanie",
		"session_1 D1:3 2023-05-08 13:56 D1:3/user/Caroline",
		"session_2 D2:1 2023-05-25 13:14 D2:1/assistant/Melanie,D2:2/user/Caroline",
		"session_2 D2:3 2023-05-25 13:14 D2:3/assistant/Melanie,D2:4/user/Caroline",
		"session_10 D10:1 2023-06-27 10:37 D10:1/user/Caroline,D10:2/assistant/Melanie",
	}
	loadtest.Lines(t, "interactions", got, want)
	// Questions come after every interaction.
	seenQ := false
	for _, s := range ep.Steps {
		if s.Question != nil {
			seenQ = true
		} else if seenQ {
			t.Fatal("interaction after a question")
		}
	}
}

func TestImageTurns(t *testing.T) {
	in := loadtest.Interactions(load(t)["conv-26"])[3]
	if got, want := in.Turns[0].Content, "I'm starting to realize that self-care is really important. and shared a photo of a woman running in a race"; got != want {
		t.Errorf("image turn = %q, want %q", got, want)
	}
}

func TestDefaultCategoriesAreThePapers(t *testing.T) {
	for id, ep := range load(t) {
		for _, q := range ep.Questions() {
			if q.Category == "5" {
				t.Errorf("%s: category 5 question %s loaded by default", id, q.ID)
			}
		}
	}
	if n := len(load(t)["conv-26"].Questions()); n != 10 {
		t.Errorf("conv-26 default questions = %d, want 10 (12 minus 2 adversarial)", n)
	}
	if n := len(load(t, "adversarial")["conv-30"].Questions()); n != 1 {
		t.Errorf("adversarial only = %d questions, want 1", n)
	}
	if n := len(load(t, "1", "single_hop")["conv-26"].Questions()); n != 6 {
		t.Errorf("categories 1 and single-hop = %d questions, want 6", n)
	}
	_, err := Load(context.Background(), fixture, datasets.Options{Categories: []string{"7"}})
	loadtest.WantError(t, err, "unknown category", `"7"`)
}

func TestQuestions(t *testing.T) {
	qs := questions(load(t, "all")["conv-26"])
	cases := []struct {
		idx, gold, cat, name string
		evidence             []string
		unresolved           string
		abs                  bool
		adversarial          string
	}{
		{"0", "7 May 2023", "2", "temporal", []string{"D1:1"}, "", false, ""},
		{"1", "Adoption agencies", "1", "multi-hop", []string{"D1:3", "D10:1"}, "", false, ""}, // "D1:3; D10:1" packed
		{"2", "Likely no", "3", "open-domain", nil, "", false, ""},                             // empty evidence
		{"3", "2023", "4", "single-hop", []string{"D2:1"}, "", false, ""},                      // integer answer, zero-padded "D2:01"
		{"4", "self-care is important", "4", "single-hop", nil, "D", false, ""},                // bare "D"
		{"5", "for mental health", "1", "multi-hop", []string{"D2:1"}, "", false, ""},          // stray colon "D:2:1"
		{"6", "two", "1", "multi-hop", nil, "D10:9", false, ""},                                // dangling id
		{"7", "a cat and a charity race", "3", "open-domain", []string{"D2:1", "D2:3", "D10:1"}, "", false, ""},
		{"8", "", "5", "adversarial", []string{"D2:3"}, "", true, "self-care is important"},
		{"9", "No", "5", "adversarial", []string{"D2:1"}, "", true, "Yes"},
		{"10", "7 May 2023", "2", "temporal", []string{"D1:1"}, "", false, ""},              // duplicate question kept
		{"11", "She asked how it felt", "4", "single-hop", []string{"D1:1"}, "", false, ""}, // "(D1:2)"
	}
	if len(qs) != len(cases) {
		t.Fatalf("questions = %d, want %d", len(qs), len(cases))
	}
	for _, c := range cases {
		q := qs["conv-26:"+c.idx]
		if q == nil {
			t.Fatalf("question conv-26:%s missing", c.idx)
		}
		if q.Gold != c.gold || q.Category != c.cat || q.Labels["category_name"] != c.name || q.Labels["qa_index"] != c.idx || q.Abstention != c.abs {
			t.Errorf("%s: gold %q cat %q labels %v abs %v", q.ID, q.Gold, q.Category, q.Labels, q.Abstention)
		}
		if !reflect.DeepEqual(q.Evidence, c.evidence) {
			t.Errorf("%s: evidence %q, want %q", q.ID, q.Evidence, c.evidence)
		}
		if q.Labels["evidence_unresolved"] != c.unresolved || q.Labels["adversarial_answer"] != c.adversarial {
			t.Errorf("%s: unresolved %q adversarial %q", q.ID, q.Labels["evidence_unresolved"], q.Labels["adversarial_answer"])
		}
		if got := q.Time.Format("2006-01-02 15:04"); got != "2023-06-27 10:37" {
			t.Errorf("%s: time %s, want the last session's date", q.ID, got)
		}
	}
	// conv-30 opens with speaker_b and dates its second session in upper case.
	in := loadtest.Interactions(load(t)["conv-30"])
	if in[0].Turns[0].Role != "assistant" || in[0].Turns[0].Speaker != "Gina" || in[1].Time.Format("15:04") != "14:32" {
		t.Errorf("conv-30 interactions: %+v", in)
	}
}

func conv(mutate func(string) string) string {
	c := `{"sample_id":"conv-1","conversation":{"speaker_a":"A","speaker_b":"B","session_1_date_time":"1:56 pm on 8 May, 2023",
"session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"},{"speaker":"B","dia_id":"D1:2","text":"yo"}]},
"qa":[{"question":"Q?","answer":"A","evidence":["D1:1"],"category":1}]}`
	return mutate(c)
}

func TestMalformed(t *testing.T) {
	same := func(s string) string { return s }
	id := func(n string) func(string) string {
		return func(s string) string { return strings.Replace(s, "conv-1", n, 1) }
	}
	three := func(m func(string) string) string {
		return "[" + conv(id("conv-a")) + "," + conv(id("conv-b")) + "," + conv(id("conv-c")) + "," + conv(m) + "]"
	}
	r := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(strings.Replace(s, "conv-1", "conv-26", 1), old, new, 1) }
	}
	cases := []struct {
		name, data string
		want       []string
	}{
		{"category string", three(r(`"category":1`, `"category":"7"`)), []string{"load locomo x.json: conversation 3 (conv-26): qa[0].category: expected 1–5, got \"7\""}},
		{"category range", three(r(`"category":1`, `"category":6`)), []string{"conversation 3 (conv-26): qa[0].category: expected 1–5, got 6"}},
		{"category missing", three(r(`,"category":1`, ``)), []string{"qa[0].category: expected 1–5"}},
		{"bad date", three(r("1:56 pm on 8 May, 2023", "8 May 2023")), []string{"conversation 3 (conv-26): conversation.session_1_date_time", `"8 May 2023"`}},
		{"missing date", three(r(`"session_1_date_time":"1:56 pm on 8 May, 2023",`, ``)), []string{"conversation.session_1_date_time: expected a date string"}},
		{"unknown speaker", three(r(`"speaker":"B"`, `"speaker":"C"`)), []string{"conversation.session_1[1].speaker", `"C"`}},
		{"duplicate dia_id", three(r(`"dia_id":"D1:2"`, `"dia_id":"D1:1"`)), []string{"conversation.session_1[1].dia_id", "already used"}},
		{"missing text", three(r(`,"text":"yo"`, ``)), []string{"conversation.session_1[1].text"}},
		{"answer missing", three(r(`"answer":"A",`, ``)), []string{"qa[0].answer"}},
		{"evidence number", three(r(`"evidence":["D1:1"]`, `"evidence":7`)), []string{"qa[0].evidence"}},
		{"session not a list", three(r(`"session_1":[`, `"session_1":"oops","s1":[`)), []string{"conversation.session_1: expected an array, got JSON string"}},
		{"invalid JSON", three(r(`"session_1":[`, `"session_1":{[`)), []string{"conversation 3", "invalid JSON at byte"}},
		{"same speakers", three(r(`"speaker_b":"B"`, `"speaker_b":"A"`)), []string{"speaker_b"}},
		{"duplicate sample", "[" + conv(same) + "," + conv(same) + "]", []string{"conversation 1 (conv-1): sample_id: duplicate"}},
		{"not an array", `{}`, []string{"expected a JSON array"}},
		{"qa not objects", three(r(`"qa":[{`, `"qa":[3,{`)), []string{"qa[0]: expected an object, got JSON number"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := loadtest.WriteFile(t, t.TempDir(), "x.json", []byte(c.data))
			_, err := Load(context.Background(), p, datasets.Options{Categories: []string{"all"}})
			loadtest.WantError(t, err, c.want...)
		})
	}
	_, err := Load(context.Background(), "", datasets.Options{})
	loadtest.WantError(t, err, "--data")
}

// FuzzLoad feeds arbitrary bytes to the decoder (in memory: temporary files
// would make minimisation crawl) and checks the episodes it accepts.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[" + conv(func(s string) string { return s }) + "]"))
	f.Add([]byte(`[{"sample_id":"c","conversation":{"speaker_a":"A","speaker_b":"B","session_2_date_time":"2:32 PM on 29 January, 2023","session_10_date_time":"x",` +
		`"session_2":[{"speaker":"B","dia_id":"D2:1","text":"t","blip_caption":"a cat"}],"session_10":[]},` +
		`"qa":[{"question":"q","adversarial_answer":"x","evidence":["D:2:01; (D2:1) D"],"category":5},{"question":"q","answer":3,"evidence":"D2:1","category":2}]}]`))
	all, err := loadkit.NewFilter([]string{"all"}, nil, canonCategory)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		eps, err := decode(context.Background(), bytes.NewReader(data), int64(len(data)), all, nil)
		if err != nil {
			return
		}
		for _, ep := range eps {
			ids := map[string]bool{}
			for _, in := range loadtest.Interactions(ep) {
				if len(in.Turns) == 0 || len(in.Turns) > 2 || in.ID != in.Turns[0].ID || ids[in.ID] {
					t.Fatalf("%s: interaction %q malformed", ep.ID, in.ID)
				}
				ids[in.ID] = true
			}
			for _, q := range ep.Questions() {
				for _, e := range q.Evidence {
					if !ids[e] {
						t.Fatalf("%s: evidence %q is not an interaction", q.ID, e)
					}
				}
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "locomo10.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), p, datasets.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
