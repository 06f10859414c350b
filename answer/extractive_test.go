package answer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

// evidenceAt builds timestamped items in the baselines' text form.
func evidenceAt(texts ...string) []memory.Item {
	var out []memory.Item
	base := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, tx := range texts {
		ts := base.Add(time.Duration(i) * 24 * time.Hour)
		out = append(out, memory.Item{Channel: memory.ChannelLocal, Text: "[" + ts.Format("2006-01-02 15:04") + "] " + tx, Time: ts, Sources: []string{fmt.Sprint(i)}})
	}
	return out
}

func TestExtract(t *testing.T) {
	budget := evidenceAt(
		"user: Our total trip budget for Lisbon is 2,000 euros.\nassistant: That covers a comfortable week.",
		"user: I adopted a beagle called Biscuit.\nassistant: Lovely!",
		"user: Update: we raised the Lisbon budget to 2,500 euros.\nassistant: Noted, the budget is now 2,500 euros.",
	)
	job := evidenceAt(
		"user: I work as a data analyst at Fernwood Labs.\nassistant: Noted.",
		"user: Big change: I now work at Quillsoft as a senior analyst.\nassistant: Congratulations on Quillsoft!",
	)
	books := evidenceAt(
		"user: Can you suggest three novels for my book club?\nassistant: Here are three picks:\n1. The Overstory by Richard Powers\n2. Piranesi by Susanna Clarke\n3. Klara and the Sun by Kazuo Ishiguro",
		"user: Any podcasts for my commute?\nassistant: Try these:\n- Radiolab\n- Reply All\n- 99% Invisible",
	)
	typed := evidenceAt(
		"user: The vet appointment went fine and Biscuit was very calm about the whole visit.",
		"user: Biscuit's next vet appointment is on May 25 at 4 pm.",
		"user: The vet appointment cost 85 dollars in the end.",
		"user: Dr Alvarez at the vet appointment said Biscuit should lose weight.",
	)
	cases := []struct {
		name     string
		question string
		items    []memory.Item
		want     string // substring the answer must contain
		notWant  string // substring it must not contain
	}{
		{"current prefers later", "What is the current budget for the Lisbon trip?", budget, "2,500", "2,000"},
		{"now prefers later", "Where do I work now?", job, "Quillsoft", "Fernwood"},
		{"previous prefers earlier", "What was my original budget for the Lisbon trip?", budget, "2,000", "2,500"},
		{"former prefers earlier", "Where did I work before?", job, "Fernwood", "Quillsoft"},
		{"ordinal numbered", "What was the second book you suggested for my book club?", books, "Piranesi by Susanna Clarke", ""},
		{"ordinal third", "Which was the third novel on the list for the book club?", books, "Klara and the Sun", ""},
		{"ordinal last bullet", "What was the last podcast you recommended for my commute?", books, "99% Invisible", ""},
		{"ordinal bullet by number", "What is podcast number 2 for my commute?", books, "Reply All", ""},
		{"date question prefers dates", "When is Biscuit's vet appointment?", typed, "May 25", ""},
		{"number question prefers numbers", "How much did the vet appointment cost?", typed, "85 dollars", ""},
		{"who question prefers names", "Who did Biscuit see at the vet appointment?", typed, "Alvarez", ""},
		{"nothing matches", "What is the capital of Peru?", budget, NotAvailable, ""},
		{"empty bundle", "What is my budget?", nil, NotAvailable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Extract(c.question, c.items)
			if !strings.Contains(got, c.want) {
				t.Errorf("Extract(%q) = %q, want it to contain %q", c.question, got, c.want)
			}
			if c.notWant != "" && strings.Contains(got, c.notWant) {
				t.Errorf("Extract(%q) = %q, must not contain %q", c.question, got, c.notWant)
			}
			if strings.HasPrefix(got, "[") || strings.HasPrefix(got, "user:") {
				t.Errorf("answer keeps the timestamp or speaker prefix: %q", got)
			}
		})
	}
}

func TestExtractNarrowsLongSentences(t *testing.T) {
	items := evidenceAt("user: After a long week of meetings and a delayed train from the airport, my sister finally told me that her new flat in Valencia costs 900 euros a month, which is a lot for that area.")
	got := Extract("How much does my sister's flat cost?", items)
	if !strings.Contains(got, "900 euros") || len(strings.Fields(got)) >= 20 {
		t.Errorf("Extract = %q, want the clause with 900 euros", got)
	}
}

func TestExtractUsesTimeOrderNotBundleOrder(t *testing.T) {
	items := evidenceAt(
		"user: I work at Fernwood Labs.",
		"user: I now work at Quillsoft.",
	)
	items[0], items[1] = items[1], items[0] // a system may rank the newer one first
	if got := Extract("Where do I work at the moment?", items); !strings.Contains(got, "Quillsoft") {
		t.Errorf("Extract = %q, want the later (by time) Quillsoft", got)
	}
	if got := Extract("Where did I previously work?", items); !strings.Contains(got, "Fernwood") {
		t.Errorf("Extract = %q, want the earlier (by time) Fernwood", got)
	}
}

func TestExtractiveAnswerer(t *testing.T) {
	a := Extractive{}
	if !a.Heuristic() {
		t.Fatal("extractive answerer must report heuristic")
	}
	res, err := a.Answer(context.Background(), memory.Query{Text: "Where do I work now?"}, memory.Bundle{Items: evidenceAt("user: I work at Quillsoft.")}, renderer{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "I work at Quillsoft." || res.Messages != nil || res.PromptTokens != 0 {
		t.Errorf("result = %+v", res)
	}
}

func TestParseIntent(t *testing.T) {
	cases := []struct {
		q                                     string
		ordinal                               int
		current, previous, number, date, name bool
	}{
		{q: "What was the first book you recommended?", ordinal: 1},
		{q: "When did I first mention my dog?", previous: true, date: true},
		{q: "What was the first time I went to Lisbon?", previous: true},
		{q: "What is the 3rd item on the list?", ordinal: 3},
		{q: "What was the last restaurant you suggested?", ordinal: -1},
		{q: "How many km is my long run now?", current: true, number: true},
		{q: "Who is my current manager?", current: true, name: true},
		{q: "What did I originally plan?", previous: true},
		{q: "Which option number 2 did you give?", ordinal: 2, name: true},
	}
	for _, c := range cases {
		in := parseIntent(c.q)
		if in.ordinal != c.ordinal || in.current != c.current || in.previous != c.previous || in.number != c.number || in.date != c.date || in.name != c.name {
			t.Errorf("parseIntent(%q) = ord %d cur %v prev %v num %v date %v name %v", c.q, in.ordinal, in.current, in.previous, in.number, in.date, in.name)
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("What was the second item?", "[2023-05-01 10:00] user: list\nassistant: 1. a\n2. b")
	f.Add("How much?", "user: it cost 5 dollars. Then 6.")
	f.Add("", "")
	f.Add("the 99th one", "- x\n- y")
	f.Fuzz(func(t *testing.T, q, text string) {
		got := Extract(q, []memory.Item{{Text: text, Sources: []string{"a"}}, {Text: text + "\n" + q, Sources: []string{"b"}}})
		if got == "" {
			t.Errorf("Extract(%q) returned an empty answer", q)
		}
	})
}

// TestExtractOnSuiteConversation answers questions over the conformance
// suite's whole conversation, as a full-context bundle would hold it.
func TestExtractOnSuiteConversation(t *testing.T) {
	var items []memory.Item
	for _, in := range memorytest.Conversation() {
		items = append(items, memory.Item{Channel: memory.ChannelLocal, Text: "[" + dialog.FormatTime(in.Time) + "] " + in.Text(), Time: in.Time, Sources: []string{in.ID}})
	}
	cases := []struct{ q, want string }{
		{"What hotel did I book in Lisbon?", "Casa Azul"},
		{"What is the current budget for the Lisbon trip?", "2,500"},
		{"What was my original budget for the trip?", "2,000"},
		{"What was the third book suggested for the book club?", "Klara and the Sun"},
		{"When is Biscuit's vet appointment?", "May 25"},
		{"What is my race goal now?", "1 hour 50 minutes"},
		{"How long is my long run now?", "18 km"},
		{"When does the book club meet?", "first Thursday"},
	}
	for _, c := range cases {
		if got := Extract(c.q, items); !strings.Contains(got, c.want) {
			t.Errorf("Extract(%q) = %q, want it to contain %q", c.q, got, c.want)
		}
	}
}

// fullContextBundles builds, for every question of the LoCoMo fixture and
// the first bmeSessions BranchMemEval sessions, the full-context bundle a full baseline
// would hand the answerer: every earlier interaction, one item each.
func fullContextBundles(t testing.TB, bmeSessions int) (questions []string, bundles [][]memory.Item) {
	t.Helper()
	ctx := context.Background()
	for _, src := range []struct {
		name, path string
		limit      int
	}{{"locomo", "../datasets/locomo/testdata/locomo10.json", 0}, {"branchmemeval", "", bmeSessions}} {
		eps, err := datasets.Load(ctx, src.name, src.path, datasets.Options{Categories: []string{"all"}})
		if err != nil {
			t.Fatalf("%s: %v", src.name, err)
		}
		if src.limit > 0 && len(eps) > src.limit {
			eps = eps[:src.limit]
		}
		for _, ep := range eps {
			var items []memory.Item
			for _, st := range ep.Steps {
				in := st.Interaction
				if q := st.Question; q != nil {
					questions = append(questions, q.Text)
					bundles = append(bundles, slices.Clone(items))
					in = q.Canonical
				}
				if in != nil {
					var b strings.Builder
					for _, tu := range in.Turns {
						fmt.Fprintf(&b, "[%s] %s: %s\n", in.Time.Format("2006-01-02 15:04"), tu.Role, tu.Content)
					}
					items = append(items, memory.Item{Text: b.String(), Time: in.Time, Sources: []string{in.ID}})
				}
			}
		}
	}
	return questions, bundles
}

// TestExtractAnalysisCacheKeepsAnswers: answers from a cold analysis cache
// (every span analysed afresh, as before the cache) equal answers from the
// warm cache shared by every question of an episode.
func TestExtractAnalysisCacheKeepsAnswers(t *testing.T) {
	qs, bs := fullContextBundles(t, 1)
	if len(qs) < 10 {
		t.Fatalf("only %d questions", len(qs))
	}
	// Every fourth question answered cold (the slow part); all warm, in
	// order, so that each question meets the analyses of the ones before.
	cold := map[int]string{}
	for i := 0; i < len(qs); i += 4 {
		analysisCache.Lock()
		clear(analysisCache.m)
		analysisCache.Unlock()
		cold[i] = Extract(qs[i], bs[i])
	}
	for i := range qs {
		warm := Extract(qs[i], bs[i])
		if c, ok := cold[i]; ok && warm != c {
			t.Fatalf("question %d %q: warm cache answers %q, cold %q", i, qs[i], warm, c)
		}
	}
}

// BenchmarkExtractFullContext answers every question of the fixtures from
// its full-context bundle (ns per question).
// "cold" empties the analysis cache before each question: every span is
// analysed per question, as before the cache.
func BenchmarkExtractFullContext(b *testing.B) {
	qs, bs := fullContextBundles(b, 12)
	for _, cold := range []bool{true, false} {
		b.Run(map[bool]string{true: "cold", false: "cached"}[cold], func(b *testing.B) {
			i := 0
			for b.Loop() {
				if cold {
					analysisCache.Lock()
					clear(analysisCache.m)
					analysisCache.Unlock()
				}
				Extract(qs[i%len(qs)], bs[i%len(qs)])
				i++
			}
		})
	}
}
