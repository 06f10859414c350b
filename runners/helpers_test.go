package runners

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

// update rewrites the golden files (go test ./runners/ -run Golden -update).
var _ = flag.Bool("update", false, "rewrite golden files")

// testConfig is the embedded offline default with run outputs (and the
// response cache, whose default location was resolved from the default
// results folder at load time) in a temporary folder and no progress bars.
// yaml, when not empty, is layered over the default as a --config file is.
func testConfig(t testing.TB, yaml ...string) *config.Config {
	t.Helper()
	results := t.TempDir()
	file := ""
	if len(yaml) > 0 {
		file = filepath.Join(t.TempDir(), "arbor.yaml")
		body := fmt.Sprintf("run: {results: %s, progress: false}\n%s", results, strings.Join(yaml, ""))
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(file, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run.Results = results
	cfg.Cache.Dir = filepath.Join(results, ".cache", "llm")
	cfg.Run.Progress = false
	// Every run reports its tables with intervals; a few hundred resamples
	// keep the tests fast (pkg/stats tests the procedure at full size).
	cfg.Report.Resamples = 400
	return cfg
}

// chatYAML points the chat role at fake and runs answers and session
// summaries through it; ArborMem's memory operations stay rule-based to keep
// the runs small. Retries are quick so that injected faults cost nothing.
func chatYAML(fake *openaifake.Server, inflight int) string {
	return fmt.Sprintf(`models:
  chat:
    endpoints:
      - {url: %s, model: fake-model, max_inflight: %d, timeout: 20s}
answer: {answerer: chat}
baselines: {summaries: chat}
arbormem: {extractors: heuristic}
retry: {max_attempts: 3, base_delay: 1ms, max_delay: 5ms}
`, fake.URL, inflight)
}

// episodes loads the shipped BranchMemEval set, keeping the first n episodes
// (all when n is 0).
func episodes(t testing.TB, n int) []datasets.Episode {
	t.Helper()
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 && n < len(eps) {
		eps = eps[:n]
	}
	return eps
}

// questions lists the questions of eps in replay order.
func questions(eps []datasets.Episode) []*datasets.Question {
	var out []*datasets.Question
	for _, e := range eps {
		out = append(out, e.Questions()...)
	}
	return out
}

// script decides the fake answer model's reply to each question of a slice
// of the shipped set: the gold answer for the questions in right, a reply
// naming neither the gold nor the confounder for the others.
type script struct {
	byPrompt map[string]*datasets.Question
	right    map[string]bool
	// summaries counts the session-summary requests.
	summaries atomic.Int64
}

// wrongReply names no value at all, so it is a miss under BranchMemEval's
// rules whatever the question.
const wrongReply = "I could not find that."

// newScript answers every other question right (the first, third, ...),
// skipping questions whose gold contains the confounder or the reverse,
// since a reply naming the gold would then also name the confounder.
func newScript(qs []*datasets.Question) *script {
	s := &script{byPrompt: map[string]*datasets.Question{}, right: map[string]bool{}}
	for i, q := range qs {
		s.byPrompt[promptKey(q.Text, dialog.FormatTime(q.Time))] = q
		g, c := strings.ToLower(q.Gold), strings.ToLower(q.Confounder)
		if i%2 == 0 && (c == "" || (!strings.Contains(g, c) && !strings.Contains(c, g))) {
			s.right[q.ID] = true
		}
	}
	return s
}

func promptKey(text, now string) string { return strings.TrimSpace(text) + "\x00" + now }

// question finds the question an answer request is about. Both the shared
// answer template and ArborMem's own layout end the last user message with
// the question and state the question's time under "### CURRENT TIME";
// questions repeat across sessions, so both are needed.
func (s *script) question(req openaifake.Request) *datasets.Question {
	var last string
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Content + "\n")
		if m.Role == "user" {
			last = strings.TrimSpace(m.Content)
		}
	}
	const marker = "### CURRENT TIME\n"
	text := all.String()
	i := strings.Index(text, marker)
	if i < 0 {
		return nil
	}
	now, _, _ := strings.Cut(text[i+len(marker):], "\n")
	for key, q := range s.byPrompt {
		qt, qnow, _ := strings.Cut(key, "\x00")
		if qnow == now && strings.HasSuffix(last, qt) {
			return q
		}
	}
	return nil
}

// reply is the fake's Reply: session summaries get a fixed text, answers the
// scripted reply; anything else is a test bug and gets a reply that fails
// the run's expectations loudly.
func (s *script) reply(req openaifake.Request) string {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, "### NEW INTERACTIONS (session") {
			s.summaries.Add(1)
			return "The user and the assistant talked about plans."
		}
	}
	q := s.question(req)
	if q == nil {
		return "UNSCRIPTED REQUEST"
	}
	if s.right[q.ID] {
		return q.Gold
	}
	return wrongReply
}

// sampleKeys reads the keys of a samples.jsonl line by line, failing on a
// line that is not a complete record, and counts each key.
func sampleKeys(t testing.TB, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		var s record.Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: line %d: %v", path, n, err)
		}
		keys[s.Key()]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// sameKeys fails unless got holds each key of want exactly once and nothing else.
func sameKeys(t testing.TB, got, want map[string]int) {
	t.Helper()
	var missing, extra, dup []string
	for k := range want {
		if got[k] == 0 {
			missing = append(missing, k)
		}
	}
	for k, n := range got {
		if want[k] == 0 {
			extra = append(extra, k)
		}
		if n > 1 {
			dup = append(dup, k)
		}
	}
	if len(missing)+len(extra)+len(dup) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		sort.Strings(dup)
		t.Errorf("sample keys differ: missing %q, unexpected %q, duplicated %q", missing, extra, dup)
	}
}

// timingTables hold wall-clock figures and differ between any two runs.
var timingTables = map[string]bool{"latency.md": true}

// sameTables fails unless both runs rendered the same Markdown tables, the
// timing tables aside.
func sameTables(t testing.TB, got, want string) {
	t.Helper()
	a, b := mdTables(t, got), mdTables(t, want)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("tables: %s has %d, %s has %d", got, len(a), want, len(b))
	}
	for name, text := range b {
		if timingTables[name] {
			continue
		}
		if a[name] != text {
			t.Errorf("tables/%s differs:\n--- %s ---\n%s\n--- %s ---\n%s", name, got, a[name], want, text)
		}
	}
}

func mdTables(t testing.TB, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "tables", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// tableJSON reads dir/tables/<name>.json.
type tableJSON struct {
	Columns []struct {
		Name string `json:"name"`
	} `json:"columns"`
	Rows []struct {
		Label string `json:"label"`
		Cells []struct {
			Value *float64 `json:"value"`
		} `json:"cells"`
	} `json:"rows"`
	Notes   []string `json:"notes"`
	Caption string   `json:"caption"`
}

func readTable(t testing.TB, dir, name string) tableJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "tables", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tb tableJSON
	if err := json.Unmarshal(b, &tb); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	return tb
}

// value is the cell of row and column, failing when either is missing.
func (tb tableJSON) value(t testing.TB, row, col string) float64 {
	t.Helper()
	c := -1
	for i, cl := range tb.Columns {
		if cl.Name == col {
			c = i
		}
	}
	for _, r := range tb.Rows {
		if r.Label == row && c >= 0 && c < len(r.Cells) {
			if r.Cells[c].Value == nil {
				t.Fatalf("table cell %s/%s is empty", row, col)
			}
			return *r.Cells[c].Value
		}
	}
	t.Fatalf("table has no cell %s/%s (columns %v)", row, col, tb.Columns)
	return 0
}

// deadline bounds a run in tests that talk to a fake over loopback.
func deadline(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// speakingCached starts a speaking fake for the test and returns it and
// the offline default's config pointed at it, with a response cache of its
// own.
func speakingCached(t *testing.T) (*config.Config, *openaifake.Server) {
	t.Helper()
	sp, err := fake.New(fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := openaifake.New(sp.Install(openaifake.Options{}))
	t.Cleanup(srv.Close)
	base := testConfig(t)
	cfg := SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 8)
	cfg.Cache.Enabled = true
	cfg.Cache.Dir = filepath.Join(t.TempDir(), "cache")
	return cfg, srv
}
