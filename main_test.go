package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/cmd"
	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestMain lets the tests run the test binary itself as the arbor command,
// so that a real process can be killed mid-run.
func TestMain(m *testing.M) {
	if os.Getenv("ARBOR_TEST_MAIN") == "1" {
		os.Exit(cmd.Execute())
	}
	os.Exit(m.Run())
}

// process is one arbor command started by a test.
type process struct {
	*exec.Cmd
	stdout, stderr bytes.Buffer
}

func start(t *testing.T, args ...string) *process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	p := &process{Cmd: exec.CommandContext(ctx, os.Args[0], args...)}
	p.Env = append(os.Environ(), "ARBOR_TEST_MAIN=1")
	p.Stdout, p.Stderr = &p.stdout, &p.stderr
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// arbor runs an arbor command to completion and returns its output.
func arbor(t *testing.T, args ...string) string {
	t.Helper()
	p := start(t, args...)
	if err := p.Wait(); err != nil {
		t.Fatalf("arbor %s: %v\n%s", strings.Join(args, " "), err, p.stderr.String())
	}
	return p.stdout.String()
}

// runDir is the single run folder an eval made under results.
func runDir(t *testing.T, results, pattern string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(results, pattern))
	if len(dirs) != 1 {
		t.Fatalf("want one run folder %s under %s, got %v", pattern, results, dirs)
	}
	return dirs[0]
}

// lines counts the complete lines of a file (0 when it does not exist yet).
func lines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte{'\n'})
}

// keys reads every line of a samples.jsonl as a record and lists the keys
// with how often each occurs.
func keys(t *testing.T, dir string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		var s record.Sample
		if !strings.HasSuffix(line, "\n") || json.Unmarshal([]byte(line), &s) != nil {
			t.Fatalf("%s/samples.jsonl: line %d is not a complete record: %.80q", dir, i+1, line)
		}
		out[s.Key()]++
	}
	return out
}

// sameRun fails unless two run folders hold the same sample keys, each
// once, and the same Markdown tables but for the latency table, whose
// columns are wall-clock times.
// withoutLastColumn drops the last cell of every Markdown table row.
func withoutLastColumn(md []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "|") {
			cells := strings.Split(strings.TrimSuffix(l, "|"), "|")
			l = strings.Join(cells[:len(cells)-1], "|") + "|"
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

func sameRun(t *testing.T, got, want string) {
	t.Helper()
	g, w := keys(t, got), keys(t, want)
	var diff []string
	for k, n := range g {
		if n != 1 || w[k] != 1 {
			diff = append(diff, fmt.Sprintf("%q: %d times, reference %d", k, n, w[k]))
		}
	}
	for k := range w {
		if g[k] == 0 {
			diff = append(diff, fmt.Sprintf("%q: missing", k))
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s has other samples than %s:\n%s", got, want, strings.Join(diff, "\n"))
	}
	sameBundles(t, got)
	files, _ := filepath.Glob(filepath.Join(want, "tables", "*.md"))
	if len(files) == 0 {
		t.Fatalf("%s has no tables", want)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if name == "latency.md" {
			continue
		}
		a, errA := os.ReadFile(filepath.Join(got, "tables", name))
		b, errB := os.ReadFile(f)
		if name == "cost.md" {
			// A resumed run answers some calls from the response cache:
			// its cache-hit column differs, every cost does not.
			a, b = withoutLastColumn(a), withoutLastColumn(b)
		}
		if err := errors.Join(errA, errB); err != nil || !bytes.Equal(a, b) {
			t.Errorf("tables/%s differs (%v):\n--- %s ---\n%s\n--- %s ---\n%s", name, err, got, a, want, b)
		}
	}
}

// sameBundles fails unless every sample of run folder dir answered without
// error has its bundle in bundles.jsonl (when the run records bundles).
func sameBundles(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "bundles.jsonl"))
	if err != nil {
		return // run.bundles: off
	}
	have := map[string]bool{}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		var rec record.Bundle
		if strings.HasSuffix(line, "\n") && json.Unmarshal([]byte(line), &rec) == nil {
			have[rec.Key()] = true
		}
	}
	ss, err := record.ReadLog[record.Sample](filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, s := range ss {
		if s.Error == "" && !have[s.Key()] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%s: %d of %d samples have no bundle", dir, missing, len(ss))
	}
}

// withoutResultsLine drops the line naming the run folder from an eval's output.
func withoutResultsLine(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "results: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// questionsOf lists the questions of eps in replay order.
func questionsOf(eps []datasets.Episode) []*datasets.Question {
	var qs []*datasets.Question
	for _, e := range eps {
		qs = append(qs, e.Questions()...)
	}
	return qs
}

// questionCount is the number of questions in the first n shipped sessions.
func questionCount(t *testing.T, n int) int {
	t.Helper()
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return len(questionsOf(eps[:n]))
}

// slowChat writes a config whose answers come from a fake answer model that
// takes a while to start replying, so that a run can be stopped mid-way.
// The fake answers every other question of the shipped set with its gold
// answer and the rest with a non-answer, so the tables are neither all
// right nor all wrong. Questions repeat across sessions; their text and
// time together (both in the shared answer template) tell them apart.
func slowChat(t *testing.T) string {
	t.Helper()
	file, _ := slowChatServer(t)
	return file
}

// slowChatServer is slowChat with the fake server, to count its requests.
func slowChatServer(t *testing.T) (string, *openaifake.Server) {
	t.Helper()
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string]string{}
	for i, q := range questionsOf(eps) {
		if i%2 == 0 {
			gold[q.Text+"@"+dialog.FormatTime(q.Time)] = q.Gold
		}
	}
	fake := openaifake.New(openaifake.Options{FirstTokenLatency: 40 * time.Millisecond, Reply: func(r openaifake.Request) string {
		prompt := r.Messages[len(r.Messages)-1].Content
		_, rest, _ := strings.Cut(prompt, "### CURRENT TIME\n")
		now, _, _ := strings.Cut(rest, "\n")
		_, question, _ := strings.Cut(rest, "### QUESTION\n")
		if g, ok := gold[strings.TrimSpace(question)+"@"+now]; ok {
			return g
		}
		return "No idea."
	}})
	t.Cleanup(fake.Close)
	file := filepath.Join(t.TempDir(), "slow.yaml")
	yaml := fmt.Sprintf("models:\n  chat:\n    endpoints:\n      - {url: %s, model: fake-model, max_inflight: 2, timeout: 30s}\nanswer: {answerer: chat}\n", fake.URL)
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, fake
}

// slowEval is the eval command line (given the results folder) of BM25 and
// Full over the first n shipped sessions answered by slowChat, and the
// number of samples it makes.
func slowEval(t *testing.T, n int) (func(results string) []string, int) {
	t.Helper()
	cfg := slowChat(t)
	return func(results string) []string {
		return []string{"eval", "branchmemeval", "--limit", fmt.Sprint(n), "--systems", "bm25,full",
			"--results", results, "--no-progress", "--config", cfg}
	}, 2 * questionCount(t, n)
}

// stopMidRun starts an eval, waits for its first few samples, and stops it
// with sig; it returns the run folder and the stopped process.
func stopMidRun(t *testing.T, sig syscall.Signal, args func(results string) []string, total int) (string, *process) {
	t.Helper()
	results := t.TempDir()
	p := start(t, args(results)...)
	exited := make(chan struct{})
	go func() { p.Wait(); close(exited) }()
	var dir string
	for dir == "" || lines(filepath.Join(dir, "samples.jsonl")) < 4 {
		if dirs, _ := filepath.Glob(filepath.Join(results, "eval-branchmemeval-*")); len(dirs) == 1 {
			dir = dirs[0]
		}
		select {
		case <-exited:
			t.Fatalf("arbor exited before it could be stopped:\n%s", p.stderr.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := p.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-exited
	if n := lines(filepath.Join(dir, "samples.jsonl")); n >= total {
		t.Fatalf("the run had recorded all %d samples before it was stopped; nothing to resume", n)
	}
	return dir, p
}

// TestEvalKilledResumes kills `arbor eval` with SIGKILL mid-run, leaves a
// torn line at the end of its samples.jsonl as a kill in the middle of a
// write would, and re-runs the same command: the log is repaired, and the
// finished run has exactly the samples and tables of an uninterrupted run.
func TestEvalKilledResumes(t *testing.T) {
	args, total := slowEval(t, 6)
	refResults := t.TempDir()
	refOut := arbor(t, args(refResults)...)
	ref := runDir(t, refResults, "eval-branchmemeval-*")
	if n := len(keys(t, ref)); n != total {
		t.Fatalf("uninterrupted run has %d samples, want %d", n, total)
	}

	dir, p := stopMidRun(t, syscall.SIGKILL, args, total)
	if ws, ok := p.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("arbor was not killed: %v", p.ProcessState)
	}
	samples := filepath.Join(dir, "samples.jsonl")
	before := lines(samples)
	f, err := os.OpenFile(samples, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"benchmark":"branchmemeval","episode":"s0`)
	f.Close()

	re := start(t, args(filepath.Dir(dir))...)
	if err := re.Wait(); err != nil {
		t.Fatalf("resume failed: %v\n%s", err, re.stderr.String())
	}
	for _, want := range []string{"repaired", fmt.Sprintf("(resumed %d)", before)} {
		if !strings.Contains(re.stderr.String(), want) {
			t.Errorf("resumed run's log does not say %q:\n%s", want, re.stderr.String())
		}
	}
	if n := lines(samples); n != total {
		t.Errorf("samples.jsonl has %d lines after the resume, want %d", n, total)
	}
	sameRun(t, dir, ref)
	if got, want := withoutResultsLine(re.stdout.String()), withoutResultsLine(refOut); got != want {
		t.Errorf("printed tables differ:\n--- resumed ---\n%s\n--- uninterrupted ---\n%s", got, want)
	}
}

// TestEvalInterruptedResumes stops `arbor eval` with SIGINT while answers
// are in flight: it exits with 130, records no sample for the interrupted
// answers, and the re-run completes the run as if nothing had happened.
func TestEvalInterruptedResumes(t *testing.T) {
	args, total := slowEval(t, 4)
	dir, p := stopMidRun(t, syscall.SIGINT, args, total)
	if code := p.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("interrupted arbor exited with %d, want 130\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "interrupted — run the same command to resume") {
		t.Errorf("interrupted arbor does not say how to resume:\n%s", p.stderr.String())
	}
	recs, err := record.ReadLog[record.Sample](filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range recs {
		if s.Error != "" {
			t.Errorf("interrupt recorded an error sample %s: %s", s.Key(), s.Error)
		}
	}
	arbor(t, args(filepath.Dir(dir))...)
	refResults := t.TempDir()
	arbor(t, args(refResults)...)
	sameRun(t, dir, runDir(t, refResults, "eval-branchmemeval-*"))
}

// TestMergeShardsCLI runs an offline eval as two shards and merges them with
// `arbor merge`: same samples and tables as the unsharded run.
func TestMergeShardsCLI(t *testing.T) {
	results := t.TempDir()
	eval := func(shard ...string) {
		arbor(t, append([]string{"eval", "branchmemeval", "--episodes", "s01,s02,s03,s04", "--systems", "bm25",
			"--results", results, "--no-progress"}, shard...)...)
	}
	eval()
	eval("--shard", "1/2")
	eval("--shard", "2/2")
	whole := runDir(t, results, "eval-branchmemeval-????????-??????")
	merged := filepath.Join(results, "merged")
	out := arbor(t, "merge", merged, runDir(t, results, "*-shard1of2"), runDir(t, results, "*-shard2of2"))
	if !strings.Contains(out, "results: "+merged) {
		t.Errorf("merge output does not name the merged run:\n%s", out)
	}
	sameRun(t, merged, whole)
	if report := arbor(t, "report", merged); withoutResultsLine(report) != withoutResultsLine(out) {
		t.Errorf("arbor report of the merged run prints other tables than arbor merge:\n%s\n---\n%s", report, out)
	}
}

// TestInputsRefusedWithOneLine: inputs that mean nothing are refused before
// anything runs, with one line naming the flag or variable.
func TestInputsRefusedWithOneLine(t *testing.T) {
	results := t.TempDir()
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"eval", "branchmemeval", "--limit", "-1"}, "", "--limit"},
		{[]string{"eval", "branchmemeval", "--systems", ""}, "", "--systems"},
		{[]string{"eval", "branchmemeval", "--run", "../../escape"}, "", "--run"},
		{[]string{"eval", "branchmemeval", "--budget", "0"}, "", "--budget"},
		{[]string{"eval", "branchmemeval"}, "ARBOR_ANSWER_BUGDET=5", "ARBOR_ANSWER_BUGDET"},
		{[]string{"eval", "nosuchbench"}, "", "known: beam, branchmemeval, locomo, longmemeval"},
	} {
		p := &process{Cmd: exec.Command(os.Args[0], append(tc.args, "--results", results, "--no-progress")...)}
		p.Env = append(os.Environ(), "ARBOR_TEST_MAIN=1")
		if tc.env != "" {
			p.Env = append(p.Env, tc.env)
		}
		p.Stdout, p.Stderr = &p.stdout, &p.stderr
		err := p.Run()
		msg := strings.TrimSpace(p.stderr.String())
		if err == nil || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("%v %s: exit %v, stderr %q; want one line naming %q", tc.args, tc.env, err, msg, tc.want)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(results, "*")); len(entries) != 0 {
		t.Errorf("refused commands left results behind: %v", entries)
	}
}

// TestVersionFlag: --version prints the version line.
func TestVersionFlag(t *testing.T) {
	if out := arbor(t, "--version"); !strings.HasPrefix(out, "arbor ") || !strings.Contains(out, "commit") {
		t.Errorf("--version printed %q", out)
	}
}

// TestReportHousekeeping: `arbor report RUN --out X --html Y` writes
// nothing into the run (it works on a read-only run folder); a report of a
// run that an eval still holds says so; a temporary table file left by a
// killed write is removed by the next report.
func TestReportHousekeeping(t *testing.T) {
	results := t.TempDir()
	arbor(t, "eval", "branchmemeval", "--episodes", "s01", "--systems", "bm25", "--results", results, "--no-progress")
	run := runDir(t, results, "eval-branchmemeval-*")
	tables := filepath.Join(run, "tables")
	stale := filepath.Join(tables, ".main.md.4242")
	if err := os.WriteFile(stale, []byte("| half"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * record.StaleTempAge)
	if err := os.Chtimes(stale, past, past); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, run)
	out, site := t.TempDir(), t.TempDir()
	arbor(t, "report", run, "--out", out, "--html", site)
	if after := listTree(t, run); after != before {
		t.Errorf("report --out --html changed the run folder:\n%s\n--- before ---\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(out, "main.md")); err != nil {
		t.Errorf("--out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Errorf("--html: %v", err)
	}

	lock, err := record.LockDir(run, []string{"arbor", "eval", "still-running"})
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, "report", run)
	if err := p.Wait(); err != nil {
		t.Fatalf("report of a run being written: %v\n%s", err, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "still being written by pid") || !strings.Contains(p.stderr.String(), "still-running") {
		t.Errorf("report of a run being written does not say so:\n%s", p.stderr.String())
	}
	lock.Unlock()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the report left a stale temporary table file: %v", err)
	}
	p = start(t, "report", run)
	if err := p.Wait(); err != nil || strings.Contains(p.stderr.String(), "still being written") {
		t.Errorf("report of a finished run: %v\n%s", err, p.stderr.String())
	}
}

// listTree lists every file under dir with its size and modification time.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", path, info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
