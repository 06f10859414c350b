package beam

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/datasets/internal/loadtest"
)

const split = "testdata/chats/100K"

func load(t *testing.T, path string, cats ...string) []datasets.Episode {
	t.Helper()
	eps, err := datasets.Load(context.Background(), Name, path, datasets.Options{Categories: cats})
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func ids(eps []datasets.Episode) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.ID)
	}
	return out
}

func TestGolden(t *testing.T) {
	loadtest.Golden(t, "testdata/golden/100K.golden.json", loadtest.JSON(t, load(t, split)))
}

func TestPathForms(t *testing.T) {
	cases := []struct {
		path string
		want []string
	}{
		{"testdata", []string{"1", "2", "10"}}, // repository root: chats/100K, numeric order, "notes" skipped
		{split, []string{"1", "2", "10"}},
		{split + "/2", []string{"2"}},
		{split + "/1/chat.json", []string{"1"}},
	}
	for _, c := range cases {
		if got := ids(load(t, c.path)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: episodes %q, want %q", c.path, got, c.want)
		}
	}
	for _, bad := range []string{"testdata/chats", split + "/1/probing_questions/probing_questions.json", "testdata/missing"} {
		_, err := Load(context.Background(), bad, datasets.Options{})
		loadtest.WantError(t, err, "load beam", bad)
	}
}

func TestTruncatedChatWins(t *testing.T) {
	ep := load(t, split+"/2")[0]
	for _, in := range loadtest.Interactions(ep) {
		if strings.Contains(in.Text(), "FULL VERSION") {
			t.Fatalf("chat.json was read although chat_trunecated.json exists: %s", in.Text())
		}
	}
	if n := len(loadtest.Interactions(ep)); n != 2 {
		t.Errorf("interactions = %d, want 2", n)
	}
}

func TestInteractions(t *testing.T) {
	ep := load(t, split+"/1")[0]
	var got []string
	for _, in := range loadtest.Interactions(ep) {
		var tids []string
		for _, tr := range in.Turns {
			tids = append(tids, tr.ID+"/"+tr.Role)
		}
		got = append(got, in.ID+" "+in.Session+" "+in.Time.Format("2006-01-02")+" "+strings.Join(tids, ","))
	}
	// Anchors sit on the first message of each batch; a turn of four
	// messages is two interactions; message 8 has no reply.
	want := []string{
		"m0 batch-1 2024-03-15 0/user,1/assistant",
		"m2 batch-1 2024-03-15 2/user,3/assistant",
		"m4 batch-1 2024-03-15 4/user,5/assistant",
		"m6 batch-2 2024-04-02 6/user,7/assistant",
		"m8 batch-2 2024-04-02 8/user",
	}
	loadtest.Lines(t, "interactions", got, want)
}

func TestQuestions(t *testing.T) {
	ep := load(t, split+"/1")[0]
	qs := ep.Questions()
	if len(qs) != 11 {
		t.Fatalf("questions = %d, want 11 (ten categories, two for information_extraction)", len(qs))
	}
	byID := map[string]*datasets.Question{}
	var order []string
	for _, q := range qs {
		byID[q.ID] = q
		order = append(order, q.Category)
		if got := q.Time.Format("2006-01-02"); got != "2024-04-02" {
			t.Errorf("%s: time %s, want the last anchor", q.ID, got)
		}
	}
	if !reflect.DeepEqual(order[:3], []string{"abstention", "contradiction_resolution", "event_ordering"}) {
		t.Errorf("category order %q", order)
	}
	cases := []struct {
		id, gold   string
		evidence   []string
		unresolved string
		rubric     int
		abs        bool
		extraKey   string
	}{
		{"1:abstention:0", "Based on the provided chat, there is no information related to your manager.", nil, "", 1, true, "abstention_type"},
		{"1:contradiction_resolution:0", "You said you never wrote Flask routes, but you also discussed a homepage route. Which is correct?", []string{"m6"}, "", 1, false, "source_chat_ids"},
		{"1:event_ordering:0", "1) schedule 2) sprint 3) caching", []string{"m0", "m4", "m8"}, "", 3, false, "ordering_tested"},
		{"1:information_extraction:1", "Craig", []string{"m4"}, "99", 1, false, "answer"},
		{"1:instruction_following:0", "Code is shown in highlighted blocks.", []string{"m2"}, "", 1, false, "compliance_indicators"},
		{"1:knowledge_update:0", "Around 250ms", []string{"m4", "m8"}, "", 1, false, "source_chat_ids"},
		{"1:multi_session_reasoning:0", "3", []string{"m2"}, "", 1, false, "answer"},
		{"1:summarization:0", "You planned phases, set a sprint and improved caching.", []string{"m0", "m4", "m8"}, "", 2, false, "ideal_summary"},
		{"1:temporal_reasoning:0", "14 days", []string{"m0", "m4"}, "", 1, false, "source_chat_ids"},
	}
	for _, c := range cases {
		q := byID[c.id]
		if q == nil {
			t.Fatalf("question %s missing", c.id)
		}
		if q.Gold != c.gold || len(q.Rubric) != c.rubric || q.Abstention != c.abs {
			t.Errorf("%s: gold %q rubric %q abs %v", c.id, q.Gold, q.Rubric, q.Abstention)
		}
		if !reflect.DeepEqual(q.Evidence, c.evidence) || q.Labels["evidence_unresolved"] != c.unresolved {
			t.Errorf("%s: evidence %q unresolved %q, want %q %q", c.id, q.Evidence, q.Labels["evidence_unresolved"], c.evidence, c.unresolved)
		}
		if _, ok := q.Extra[c.extraKey]; !ok {
			t.Errorf("%s: extra lacks %q: %v", c.id, c.extraKey, q.Extra)
		}
		if _, ok := q.Extra["rubric"]; ok {
			t.Errorf("%s: rubric duplicated in extra", c.id)
		}
		if q.Labels["index"] != c.id[strings.LastIndex(c.id, ":")+1:] {
			t.Errorf("%s: index label %q", c.id, q.Labels["index"])
		}
	}
	if n := len(load(t, split, "abstention", "preference-following")[0].Questions()); n != 2 {
		t.Errorf("filtered questions = %d, want 2", n)
	}
	_, err := Load(context.Background(), split, datasets.Options{Categories: []string{"ordering"}})
	loadtest.WantError(t, err, "unknown category")
}

// chat writes a one-chat split with the given chat.json and probing file.
func chat(t *testing.T, chatJSON, probing string) string {
	dir := t.TempDir()
	loadtest.WriteFile(t, dir, "7/chat.json", []byte(chatJSON))
	loadtest.WriteFile(t, dir, "7/"+probingFile, []byte(probing))
	return dir
}

const (
	goodChat  = `[{"batch_number":1,"turns":[[{"role":"user","id":0,"time_anchor":"March-15-2024","content":"hi"},{"role":"assistant","id":1,"content":"yo"}]],"time_anchor":null}]`
	goodProbe = `{"information_extraction":[{"question":"Q?","answer":"A","source_chat_ids":[0],"rubric":["r"]}]}`
)

func TestMalformed(t *testing.T) {
	cases := []struct {
		name, chat, probe string
		want              []string
	}{
		{"bad anchor", strings.Replace(goodChat, "March-15-2024", "the Ides of March", 1), goodProbe, []string{"7/chat.json", "batch 0: turns[0][0].time_anchor", `"the Ides of March"`}},
		{"bad batch anchor", strings.Replace(goodChat, `"time_anchor":null`, `"time_anchor":"soon"`, 1), goodProbe, []string{"batch 0: time_anchor"}},
		{"bad role", strings.Replace(goodChat, `"role":"assistant"`, `"role":"system"`, 1), goodProbe, []string{"turns[0][1].role", `"system"`}},
		{"bad id", strings.Replace(goodChat, `"id":1`, `"id":"x"`, 1), goodProbe, []string{"turns[0][1].id", "non-negative integer"}},
		{"duplicate id", strings.Replace(goodChat, `"id":1`, `"id":0`, 1), goodProbe, []string{"turns[0][1].id", "used twice"}},
		{"turns not lists", strings.Replace(goodChat, `"turns":[[`, `"turns":[3,[`, 1), goodProbe, []string{"7/chat.json", "expected"}},
		{"batch without turns", `[{"batch_number":1,"time_anchor":null}]`, goodProbe, []string{"batch 0: turns: expected a list of turns"}},
		{"plan layout", `[{"plan-1":[]}]`, goodProbe, []string{"10M", "not supported"}},
		{"null chat", `null`, goodProbe, []string{"7/chat.json", "expected a list of batches, got null"}},
		{"empty chat", `[]`, goodProbe, []string{"7/chat.json", "no messages", "0 batches"}},
		{"batches without messages", `[{"batch_number":1,"turns":[[]]},{"turns":[]}]`, goodProbe, []string{"7/chat.json", "no messages", "2 batches"}},
		{"unknown category", goodChat, `{"trivia":[]}`, []string{"probing_questions.json", `"trivia": unknown category`}},
		{"no rubric", goodChat, strings.Replace(goodProbe, `,"rubric":["r"]`, ``, 1), []string{"information_extraction[0].rubric"}},
		{"no question", goodChat, strings.Replace(goodProbe, `"question":"Q?",`, ``, 1), []string{"information_extraction[0].question"}},
		{"bad source ids", goodChat, strings.Replace(goodProbe, `[0]`, `["first"]`, 1), []string{"information_extraction[0].source_chat_ids"}},
		{"answer object", goodChat, strings.Replace(goodProbe, `"answer":"A"`, `"answer":{}`, 1), []string{"information_extraction[0].answer"}},
		{"probing not object", goodChat, `[]`, []string{"probing_questions.json", "expected an object"}},
		{"question not object", goodChat, `{"abstention":[3]}`, []string{"probing_questions.json", "expected an object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(context.Background(), chat(t, c.chat, c.probe), datasets.Options{})
			loadtest.WantError(t, err, append([]string{"load beam"}, c.want...)...)
		})
	}
	dir := t.TempDir()
	loadtest.WriteFile(t, dir, "7/chat.json", []byte(goodChat))
	_, err := Load(context.Background(), dir, datasets.Options{})
	loadtest.WantError(t, err, "probing_questions.json")
	_, err = Load(context.Background(), "", datasets.Options{})
	loadtest.WantError(t, err, "--data")
}

func TestProgress(t *testing.T) {
	var last [2]int64
	calls := 0
	_, err := Load(context.Background(), split, datasets.Options{Progress: func(done, total int64) {
		if done < last[0] || done > total {
			t.Errorf("progress %d/%d after %d", done, total, last[0])
		}
		last = [2]int64{done, total}
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || last[0] != last[1] || last[1] == 0 {
		t.Errorf("progress: %d calls, last %v", calls, last)
	}
}

// FuzzLoad feeds arbitrary chat and probing bytes to the parsers (in
// memory: temporary files would make minimisation crawl) and checks what
// they accept.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodChat), []byte(goodProbe))
	f.Add([]byte(`[{"batch_number":2,"turns":[[{"role":"assistant","id":"3","content":"a"},{"role":"user","id":4,"time_anchor":"April-05-2024","content":"u"}],[]],"time_anchor":"March-15-2024"}]`),
		[]byte(`{"knowledge_update":[{"question":"q","answer":7,"source_chat_ids":{"b":[4],"a":[3,99]},"rubric":["r"]}],"abstention":[]}`))
	all, err := loadkit.NewFilter(nil, nil, canonCategory)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, chatJSON, probing []byte) {
		var ep datasets.Episode
		byMsg, last, err := parseChat(chatJSON, &ep)
		if err != nil {
			return
		}
		qs, err := parseProbing(probing, "7", last, byMsg, all)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, in := range loadtest.Interactions(ep) {
			if len(in.Turns) == 0 || in.ID != "m"+in.Turns[0].ID || seen[in.ID] {
				t.Fatalf("interaction %q malformed", in.ID)
			}
			seen[in.ID] = true
		}
		for _, q := range qs {
			if len(q.Rubric) == 0 {
				t.Fatalf("%s: no rubric", q.ID)
			}
			for _, e := range q.Evidence {
				if !seen[e] {
					t.Fatalf("%s: evidence %q is not an interaction", q.ID, e)
				}
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), split, datasets.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
