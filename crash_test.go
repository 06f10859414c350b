package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashKills is how many times TestCrashResume kills each run: a few in the
// short form CI runs, ARBOR_CRASH_KILLS (e.g. 20) in the long form
// (docs/RELIABILITY.md).
func crashKills(t *testing.T) int {
	if v := os.Getenv("ARBOR_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ARBOR_CRASH_KILLS=%q: want a positive number", v)
		}
		return n
	}
	return 2
}

// killAt starts an arbor command, SIGKILLs it after d (unless it finished
// first) and reports whether it was killed.
func killAt(t *testing.T, d time.Duration, args ...string) bool {
	t.Helper()
	p := start(t, args...)
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("arbor %s failed on its own: %v\n%s", strings.Join(args, " "), err, p.stderr.String())
		}
		return false
	case <-time.After(d):
	}
	_ = p.Process.Signal(syscall.SIGKILL)
	<-exited
	return true
}

// killRepeatedly runs an arbor command to completion under SIGKILLs at
// kills random points of a run lasting about ref, resuming after each, and
// returns how many kills landed before the command finished.
func killRepeatedly(t *testing.T, r *rand.Rand, kills int, ref time.Duration, args ...string) int {
	t.Helper()
	landed := 0
	// Kills land anywhere from start-up to the end of a whole run: early
	// ones hit config loading and the manifest, late ones the tables. A
	// resumed run has less left to do, so a kill point past its end misses;
	// keep drawing (at most three times as many attempts) until kills landed.
	for attempt := 0; landed < kills && attempt < 3*kills; attempt++ {
		if killAt(t, time.Duration(r.Int64N(int64(ref)+1)), args...) {
			landed++
		}
	}
	arbor(t, args...)
	return landed
}

// TestCrashResume SIGKILLs `arbor eval` at random points, resumes it each
// time, and checks that the finished run has exactly the samples (none
// lost, none twice) and tables of an uninterrupted run: on the offline
// default and against a fake model endpoint with its response cache; then
// kills `arbor merge` and `arbor report` mid-way and checks their re-runs.
func TestCrashResume(t *testing.T) {
	kills := crashKills(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points seeded with %d (ARBOR_CRASH_KILLS=%d)", seed, kills)
	r := rand.New(rand.NewPCG(seed, 1))
	slow := slowChat(t)
	// ArborMem offline under the race detector (CI builds the test binary,
	// which is the killed process, with -race) takes most of a minute; the
	// long form includes it.
	offline, limit := "bm25,full", "2"
	if os.Getenv("ARBOR_CRASH_KILLS") != "" {
		offline, limit = "bm25,full,arbormem", "4"
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"offline", []string{"eval", "branchmemeval", "--limit", limit, "--systems", offline}},
		{"fake-endpoint", []string{"eval", "branchmemeval", "--limit", limit, "--systems", "bm25,summary", "--config", slow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refResults := t.TempDir()
			args := func(results string) []string {
				return append(append([]string{}, tc.args...), "--results", results, "--no-progress")
			}
			t0 := time.Now()
			arbor(t, args(refResults)...)
			ref := time.Since(t0)
			results := t.TempDir()
			landed := killRepeatedly(t, r, kills, ref, args(results)...)
			t.Logf("%d kills landed before the run finished (wanted %d; reference run %v)", landed, kills, ref.Round(time.Millisecond))
			sameRun(t, runDir(t, results, "eval-branchmemeval-*"), runDir(t, refResults, "eval-branchmemeval-*"))
		})
	}

	t.Run("merge-and-report", func(t *testing.T) {
		results := t.TempDir()
		base := []string{"eval", "branchmemeval", "--episodes", "s01,s02,s03,s04", "--systems", "bm25,full", "--results", results, "--no-progress"}
		arbor(t, base...)
		arbor(t, append(base, "--shard", "1/2")...)
		arbor(t, append(base, "--shard", "2/2")...)
		whole := runDir(t, results, "eval-branchmemeval-????????-??????")
		shards := []string{runDir(t, results, "*-shard1of2"), runDir(t, results, "*-shard2of2")}
		merged := filepath.Join(results, "merged")
		t0 := time.Now()
		arbor(t, append([]string{"merge", filepath.Join(results, "merged-ref")}, shards...)...)
		ref := time.Since(t0)
		landed := killRepeatedly(t, r, kills, ref, append([]string{"merge", merged}, shards...)...)
		sameRun(t, merged, whole)
		for i := range kills {
			_ = os.RemoveAll(filepath.Join(merged, "tables"))
			killAt(t, time.Duration(r.Int64N(int64(ref)+1)), "report", merged)
			arbor(t, "report", merged)
			if t.Failed() {
				t.Fatalf("report after kill %d", i)
			}
		}
		sameRun(t, merged, whole)
		t.Logf("merge: %d of %d kills landed", landed, kills)
	})
}

// killAfterSample starts an arbor eval writing run folder dir, SIGKILLs it
// as soon as its samples.jsonl has grown by a line (the moment a recorded
// sample's own writes, such as its cache entries, are most likely still
// under way) and reports whether it was killed before finishing.
func killAfterSample(t *testing.T, dir string, args ...string) bool {
	t.Helper()
	before := lines(filepath.Join(dir, "samples.jsonl"))
	p := start(t, args...)
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	for lines(filepath.Join(dir, "samples.jsonl")) <= before {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("arbor %s failed on its own: %v\n%s", strings.Join(args, " "), err, p.stderr.String())
			}
			return false
		case <-time.After(time.Millisecond):
		}
	}
	_ = p.Process.Signal(syscall.SIGKILL)
	<-exited
	return true
}

// TestCrashCacheResume SIGKILLs a run whose answers are written to the
// response cache as they come, at random points and right after a sample
// is recorded, resumes it to the end, then makes the same run in a fresh
// folder: every answer must come back from the cache intact (a torn entry,
// or one lost with a sample already recorded and so never asked again,
// would be a new request to the model).
func TestCrashCacheResume(t *testing.T) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	slow, fake := slowChatServer(t)
	results := t.TempDir()
	args := func(results, run string) []string {
		return []string{"eval", "branchmemeval", "--limit", "2", "--systems", "full", "--results", results, "--no-progress",
			"--config", slow, "--run", run}
	}
	// The timing run has a cache of its own: sharing the killed run's, it
	// would answer every question of it and no entry could be lost.
	t0 := time.Now()
	arbor(t, args(t.TempDir(), "timing")...)
	d := time.Since(t0)
	landed := 0
	for range 2 * crashKills(t) {
		if killAfterSample(t, filepath.Join(results, "killed"), args(results, "killed")...) {
			landed++
		}
	}
	for range crashKills(t) {
		killAt(t, time.Duration(r.Int64N(int64(d)+1)), args(results, "killed")...)
	}
	t.Logf("%d kills right after a recorded sample", landed)
	arbor(t, args(results, "killed")...)
	before := fake.PathStats("/v1/chat/completions").Requests
	arbor(t, args(results, "from-cache")...)
	if after := fake.PathStats("/v1/chat/completions").Requests; after != before {
		t.Errorf("the re-run asked the model %d times: cache entries were lost or torn by the kills", after-before)
	}
	sameRun(t, filepath.Join(results, "from-cache"), filepath.Join(results, "killed"))
	if left, _ := filepath.Glob(filepath.Join(results, ".cache", "llm", ".tmp", "*")); len(left) > 0 {
		// Only files younger than a minute may stay (a live writer's).
		t.Logf("%d temporary cache files younger than the clean-up age", len(left))
	}
}
