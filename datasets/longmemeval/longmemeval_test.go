package longmemeval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/datasets/internal/loadtest"
)

func load(t *testing.T, file string, cats ...string) []datasets.Episode {
	t.Helper()
	eps, err := datasets.Load(context.Background(), Name, filepath.Join("testdata", file), datasets.Options{Categories: cats})
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func byID(eps []datasets.Episode) map[string]datasets.Episode {
	m := map[string]datasets.Episode{}
	for _, e := range eps {
		m[e.ID] = e
	}
	return m
}

func question(ep datasets.Episode) *datasets.Question {
	qs := ep.Questions()
	if len(qs) != 1 || ep.Steps[len(ep.Steps)-1].Question == nil {
		panic(fmt.Sprintf("episode %s: expected one question at the end", ep.ID))
	}
	return qs[0]
}

func TestGolden(t *testing.T) {
	for _, f := range []string{"longmemeval_s_cleaned.json", "longmemeval_oracle.json"} {
		t.Run(f, func(t *testing.T) {
			loadtest.Golden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(f, ".json")+".golden.json"), loadtest.JSON(t, load(t, f)))
		})
	}
}

func TestGoldHintsNeverReachInteractions(t *testing.T) {
	for _, f := range []string{"longmemeval_s_cleaned.json", "longmemeval_oracle.json"} {
		for _, ep := range load(t, f) {
			for _, in := range loadtest.Interactions(ep) {
				b, err := json.Marshal(in)
				if err != nil {
					t.Fatal(err)
				}
				for _, leak := range []string{"has_answer", "answer_", "sharegpt", "ultrachat"} {
					if strings.Contains(string(b), leak) {
						t.Errorf("%s %s: interaction %s leaks %q: %s", f, ep.ID, in.ID, leak, b)
					}
				}
			}
		}
	}
}

func TestSessionsSortedByDate(t *testing.T) {
	for _, f := range []string{"longmemeval_s_cleaned.json", "longmemeval_oracle.json"} {
		for _, ep := range load(t, f) {
			var prev time.Time
			for _, in := range loadtest.Interactions(ep) {
				if in.Time.Before(prev) {
					t.Errorf("%s %s: interaction %s at %v precedes %v", f, ep.ID, in.ID, in.Time, prev)
				}
				prev = in.Time
			}
		}
	}
	// gpt4_2655b836_abs lists 03-22, 03-10, 03-22: the 03-10 bike session
	// comes first and the two 03-22 sessions keep their file order.
	ep := byID(load(t, "longmemeval_s_cleaned.json"))["gpt4_2655b836_abs"]
	var firsts []string
	for _, in := range loadtest.Interactions(ep) {
		firsts = append(firsts, in.Session+" "+in.User())
	}
	want := []string{"S1 I bought a new road bike last week.", "S2 The GPS on my car stopped working today.", "S3 What is a good stretching routine?"}
	if !reflect.DeepEqual(firsts, want) {
		t.Errorf("order = %q, want %q", firsts, want)
	}
}

func TestQuestions(t *testing.T) {
	eps := byID(load(t, "longmemeval_s_cleaned.json"))
	if len(eps) != 4 {
		t.Fatalf("episodes = %d, want 4", len(eps))
	}
	cases := []struct {
		id, gold, cat string
		abs           bool
		evidence      []string
		rubric        bool
		time          string
	}{
		{"e47becba", "Business Administration", "single-session-user", false, []string{"S2:1"}, false, "2023-05-30 23:40"},
		{"gpt4_2655b836_abs", "The information provided is not enough. You did not mention getting your bike serviced.", "temporal-reasoning", true, nil, false, "2023-04-10 17:50"},
		{"7161e7e2", "2", "single-session-assistant", false, []string{"S1:1"}, false, "2023-06-01 08:15"},
		{"8a2466db", "The user would prefer responses that suggest resources specifically tailored to Adobe Premiere Pro, especially advanced settings.", "single-session-preference", false, []string{"S1:1"}, true, "2023-05-28 07:17"},
	}
	for _, c := range cases {
		q := question(eps[c.id])
		if q.ID != c.id || q.Gold != c.gold || q.Category != c.cat || q.Abstention != c.abs {
			t.Errorf("%s: got id %q gold %q cat %q abs %v", c.id, q.ID, q.Gold, q.Category, q.Abstention)
		}
		if !reflect.DeepEqual(q.Evidence, c.evidence) {
			t.Errorf("%s: evidence %q, want %q", c.id, q.Evidence, c.evidence)
		}
		if c.rubric != (len(q.Rubric) == 1 && q.Rubric[0] == c.gold) {
			t.Errorf("%s: rubric %q", c.id, q.Rubric)
		}
		if got := q.Time.Format("2006-01-02 15:04"); got != c.time {
			t.Errorf("%s: time %s, want %s", c.id, got, c.time)
		}
	}
}

func TestInteractionGrouping(t *testing.T) {
	// Session 3 of e47becba opens with the assistant and has two user
	// turns in a row: assistant | user | user+assistant.
	ep := byID(load(t, "longmemeval_s_cleaned.json"))["e47becba"]
	var got []string
	for _, in := range loadtest.Interactions(ep) {
		var roles []string
		for _, tr := range in.Turns {
			roles = append(roles, tr.Role)
		}
		got = append(got, in.ID+"="+strings.Join(roles, "+"))
	}
	want := []string{"S1:1=user+assistant", "S2:1=user+assistant", "S2:3=user+assistant", "S3:1=assistant", "S3:2=user", "S3:3=user+assistant"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("interactions = %q, want %q", got, want)
	}
}

func TestCategories(t *testing.T) {
	cases := []struct {
		cats []string
		want int
	}{
		{nil, 4},
		{[]string{"all"}, 4},
		{[]string{"abstention"}, 1},
		{[]string{"temporal_reasoning"}, 1},
		{[]string{"single-session-user,single-session-assistant"}, 2},
	}
	for _, c := range cases {
		if got := len(load(t, "longmemeval_s_cleaned.json", c.cats...)); got != c.want {
			t.Errorf("categories %q: %d episodes, want %d", c.cats, got, c.want)
		}
	}
	_, err := datasets.Load(context.Background(), Name, "testdata/longmemeval_oracle.json", datasets.Options{Categories: []string{"preference"}})
	loadtest.WantError(t, err, "unknown category", "preference")
}

const good = `{"question_id":"q1","question_type":"multi-session","question":"Q?","answer":"A","question_date":"2023/05/30 (Tue) 23:40",
"haystack_session_ids":["a"],"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":"hi"}]],"answer_session_ids":[]}`

func TestMalformed(t *testing.T) {
	repl := func(old, new string) string { return "[" + good + "," + strings.Replace(good, old, new, 1) + "]" }
	cases := []struct {
		name, data string
		want       []string
	}{
		{"not an array", `{"a":1}`, []string{"x.json", "top level", "expected a JSON array"}},
		{"truncated", "[" + good, []string{"x.json", "unterminated"}},
		{"trailing data", "[" + good + "] []", []string{"unexpected data after the array"}},
		{"duplicate id", "[" + good + "," + good + "]", []string{"instance 1 (q1)", "question_id", "duplicate"}},
		{"bad date", repl("2023/05/20 (Sat) 02:21", "May 20, 2023"), []string{"x.json", "instance 1 (q1)", "haystack_dates[0]", `"May 20, 2023"`}},
		{"bad question date", repl("2023/05/30 (Tue) 23:40", ""), []string{"instance 1 (q1)", "question_date"}},
		{"bad type", repl("multi-session", "multi-hop"), []string{"instance 1 (q1)", "question_type", `"multi-hop"`}},
		{"bad role", repl(`"role":"user"`, `"role":"system"`), []string{"haystack_sessions[0][0].role", `"system"`}},
		{"length mismatch", repl(`"haystack_session_ids":["a"]`, `"haystack_session_ids":["a","b"]`), []string{"instance 1 (q1)", "equal length"}},
		{"answer object", repl(`"answer":"A"`, `"answer":{"x":1}`), []string{"instance 1 (q1)", "answer", "string or number"}},
		{"answer missing", repl(`"answer":"A",`, ``), []string{"instance 1 (q1)", "answer"}},
		{"wrong field type", repl(`"haystack_dates":["2023/05/20 (Sat) 02:21"]`, `"haystack_dates":"2023/05/20 (Sat) 02:21"`), []string{"instance 1 (q1)", "haystack_dates", "expected an array"}},
		{"empty question", repl(`"question":"Q?"`, `"question":" "`), []string{"instance 1 (q1)", "question:"}},
		{"missing id", repl(`"question_id":"q1",`, ``), []string{"instance 1:", "question_id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := loadtest.WriteFile(t, t.TempDir(), "x.json", []byte(c.data))
			_, err := Load(context.Background(), p, datasets.Options{})
			loadtest.WantError(t, err, append([]string{"load longmemeval"}, c.want...)...)
		})
	}
	_, err := Load(context.Background(), "", datasets.Options{})
	loadtest.WantError(t, err, "--data")
	_, err = Load(context.Background(), filepath.Join(t.TempDir(), "missing.json"), datasets.Options{})
	loadtest.WantError(t, err, "missing.json")
}

func TestProgress(t *testing.T) {
	p := filepath.Join("testdata", "longmemeval_s_cleaned.json")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var calls [][2]int64
	_, err = Load(context.Background(), p, datasets.Options{Progress: func(done, total int64) { calls = append(calls, [2]int64{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 2 {
		t.Fatalf("progress called %d times, want one per instance and a final call", len(calls))
	}
	for i, c := range calls {
		if c[1] != st.Size() || (i > 0 && c[0] < calls[i-1][0]) {
			t.Errorf("call %d = %v: want non-decreasing done against total %d", i, c, st.Size())
		}
	}
	if last := calls[len(calls)-1]; last[0] != st.Size() {
		t.Errorf("final progress %d, want %d", last[0], st.Size())
	}
}

// TestStreams shows that an episode is handed over before the rest of the
// file has even been written: decode never needs the whole array.
func TestStreams(t *testing.T) {
	pr, pw := io.Pipe()
	first := make(chan string)
	done := make(chan error)
	var ids []string
	go func() {
		f, _ := loadkit.NewFilter(nil, nil, canonCategory)
		done <- decode(context.Background(), pr, 0, f, nil, func(ep datasets.Episode) error {
			ids = append(ids, ep.ID)
			if len(ids) == 1 {
				first <- ep.ID
			}
			return nil
		})
	}()
	if _, err := io.WriteString(pw, "["+good+","); err != nil {
		t.Fatal(err)
	}
	if id := <-first; id != "q1" {
		t.Fatalf("first episode %q, want q1", id)
	}
	io.WriteString(pw, strings.Replace(good, `"q1"`, `"q2"`, 1)+"]")
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []string{"q1", "q2"}) {
		t.Errorf("ids = %q", ids)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, "testdata/longmemeval_oracle.json", datasets.Options{})
	loadtest.WantError(t, err, "context canceled")
}

// FuzzLoad feeds arbitrary bytes to the decoder (in memory: temporary files
// would make minimisation crawl) and checks the episodes it accepts.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[" + good + "]"))
	f.Add([]byte(`[{"question_id":"x_abs","question_type":"single-session-preference","question":"q","answer":3,"question_date":"2023/05/30 (Tue) 23:40",` +
		`"haystack_session_ids":["answer_1","b"],"haystack_dates":["2023/05/21 (Sun) 02:21","2023/05/20 (Sat) 02:21"],` +
		`"haystack_sessions":[[{"role":"assistant","content":"a","has_answer":true},{"role":"user","content":"u"}],[{"role":"user","content":"v"},{"role":"user","content":"w"}]]}]`))
	all, err := loadkit.NewFilter(nil, nil, canonCategory)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var eps []datasets.Episode
		err := decode(context.Background(), bytes.NewReader(data), int64(len(data)), all, nil, func(ep datasets.Episode) error {
			eps = append(eps, ep)
			return nil
		})
		if err != nil {
			return
		}
		for _, ep := range eps {
			q := ep.Steps[len(ep.Steps)-1].Question
			if q == nil || q.ID != ep.ID {
				t.Fatalf("episode %q does not end with its question", ep.ID)
			}
			ids := map[string]bool{}
			for _, in := range loadtest.Interactions(ep) {
				if len(in.Turns) == 0 || in.ID != in.Turns[0].ID || ids[in.ID] || strings.Contains(in.Session, "answer") {
					t.Fatalf("interaction %q malformed", in.ID)
				}
				ids[in.ID] = true
			}
			for _, e := range q.Evidence {
				if !ids[e] {
					t.Fatalf("evidence %q is not an interaction", e)
				}
			}
		}
	})
}

// BenchmarkLoad measures decoding speed on a synthetic file shaped like
// LongMemEval_S (50 sessions of 10 turns per instance).
func BenchmarkLoad(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < 20; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		var ids, dates, sessions []string
		for s := 0; s < 50; s++ {
			ids = append(ids, fmt.Sprintf(`"sharegpt_%d_%d"`, i, s))
			dates = append(dates, fmt.Sprintf(`"2023/05/%02d (Sat) %02d:%02d"`, 1+s%28, s%24, s%60))
			var turns []string
			for k := 0; k < 10; k++ {
				role := "user"
				if k%2 == 1 {
					role = "assistant"
				}
				turns = append(turns, fmt.Sprintf(`{"role":%q,"content":%q}`, role, strings.Repeat("lorem ipsum dolor sit amet ", 40)))
			}
			sessions = append(sessions, "["+strings.Join(turns, ",")+"]")
		}
		fmt.Fprintf(&sb, `{"question_id":"q%d","question_type":"multi-session","question":"Q?","answer":"A","question_date":"2023/06/30 (Fri) 23:40","haystack_session_ids":[%s],"haystack_dates":[%s],"haystack_sessions":[%s],"answer_session_ids":[]}`,
			i, strings.Join(ids, ","), strings.Join(dates, ","), strings.Join(sessions, ","))
	}
	sb.WriteString("]")
	p := loadtest.WriteFile(b, b.TempDir(), "bench.json", []byte(sb.String()))
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Stream(context.Background(), p, datasets.Options{}, func(datasets.Episode) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
