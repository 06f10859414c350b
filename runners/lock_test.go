package runners

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestSecondWriterIsRefused starts a second run on a run folder while the
// first is answering: the second is refused at once with the holder's pid,
// and the first finishes with every sample intact and resumable.
func TestSecondWriterIsRefused(t *testing.T) {
	eps := episodes(t, 1)
	sc := newScript(questions(eps))
	inFlight, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake := openaifake.New(openaifake.Options{Reply: func(r openaifake.Request) string {
		once.Do(func() { close(inFlight); <-release })
		return sc.reply(r)
	}})
	defer fake.Close()
	cfg := testConfig(t, chatYAML(fake, 1))
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25"}, RunID: "shared", Config: cfg,
		Command: []string{"arbor", "eval", "first"}, Out: io.Discard, Log: io.Discard}
	first := make(chan error, 1)
	go func() {
		_, err := Run(deadline(t), plan)
		first <- err
	}()
	<-inFlight
	second := plan
	second.Command = []string{"arbor", "eval", "second"}
	_, err := Run(deadline(t), second)
	close(release)
	want := fmt.Sprintf("pid %d (arbor eval first)", os.Getpid())
	if !errors.Is(err, record.ErrLocked) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second writer: %v; want a refusal naming %q", err, want)
	}
	if err := <-first; err != nil {
		t.Fatalf("first writer: %v", err)
	}
	path := filepath.Join(cfg.Run.Results, "shared", "samples.jsonl")
	sameKeys(t, sampleKeys(t, path), wantKeys(eps, plan.Systems, cfg.Answer.Budget))
	// The folder is free again: the same command resumes with nothing to do.
	if _, err := Run(deadline(t), second); err != nil {
		t.Fatalf("resume after the first writer finished: %v", err)
	}
	if n := fake.PathStats("/v1/chat/completions").Requests; n != int64(len(questions(eps))) {
		t.Errorf("%d chat requests, want one per question (the refused writer must not answer)", n)
	}
}

// TestShardsUnderRunGetTheirOwnFolder: --run with --shard names one folder
// per shard, and merging some shards of a plan warns about the others.
func TestShardsUnderRunGetTheirOwnFolder(t *testing.T) {
	p := Plan{Benchmark: "bme", RunID: "mine", Shard: Shard{K: 1, N: 2}}
	if got := p.runID(); got != "mine-shard1of2" {
		t.Errorf("runID = %q, want mine-shard1of2", got)
	}
	for _, tc := range []struct {
		shards []string
		want   string
	}{
		{[]string{"1/2", "2/2"}, ""},
		{[]string{"", ""}, ""},
		{[]string{"1/3", "3/3"}, "shards 2/3 are missing"},
		{[]string{"1/2", "1/3"}, "different splits"},
	} {
		if got := missingShards(tc.shards); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("missingShards(%q) = %q, want %q", tc.shards, got, tc.want)
		}
	}
}
