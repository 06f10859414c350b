package runners

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
)

// TestSourceStreamsLongMemEval serves a LongMemEval file through a FIFO
// whose writer, on the replay pass, writes instance k only once the runner
// has been handed episode k-1. A source that read the whole file before
// handing episodes on would wait forever; a streaming one hands each episode
// on as it is decoded, so the runner (whose callback blocks while every
// worker is busy) holds one episode per worker, not the file.
func TestSourceStreamsLongMemEval(t *testing.T) {
	raw, err := os.ReadFile("../datasets/longmemeval/testdata/longmemeval_s_cleaned.json")
	if err != nil {
		t.Fatal(err)
	}
	var base []map[string]any
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	const n = 8
	instances := make([][]byte, n)
	for k := range instances {
		inst := map[string]any{}
		for key, v := range base[k%len(base)] {
			inst[key] = v
		}
		inst["question_id"] = fmt.Sprintf("%s-copy%d", inst["question_id"], k)
		if instances[k], err = json.Marshal(inst); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(t.TempDir(), "longmemeval_stream.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	var handed atomic.Int64
	serve := func(gated bool) chan error {
		done := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				done <- err
				return
			}
			defer f.Close()
			io.WriteString(f, "[")
			for k, inst := range instances {
				for deadline := time.Now().Add(20 * time.Second); gated && handed.Load() < int64(k); {
					if time.Now().After(deadline) {
						done <- fmt.Errorf("instance %d waited 20s for episode %d to be handed on: the source is not streaming", k, k-1)
						return
					}
					time.Sleep(2 * time.Millisecond)
				}
				if k > 0 {
					io.WriteString(f, ",")
				}
				f.Write(inst)
			}
			io.WriteString(f, "]")
			done <- nil
		}()
		return done
	}
	cfg := testConfig(t)
	src := &source{plan: &Plan{Benchmark: "longmemeval", Data: fifo, Config: cfg, Log: io.Discard}}
	indexed := serve(false)
	hs, err := src.index(deadline(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-indexed; err != nil {
		t.Fatal(err)
	}
	if len(hs) != n || src.all != nil {
		t.Fatalf("index: %d headers (want %d), %d episodes held (want none for a streaming benchmark)", len(hs), n, len(src.all))
	}
	replayed := serve(true)
	var got []string
	err = src.replay(deadline(t), func(ep *datasets.Episode) error {
		// Handing episode k on lets the writer produce instance k+1 only.
		got = append(got, ep.ID)
		handed.Add(1)
		return nil
	})
	if werr := <-replayed; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("replayed %d episodes, want %d: %v", len(got), n, got)
	}
}
