package runners

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
)

// BenchmarkEpisodeHeap measures the live heap one offline ArborMem episode
// holds after ingesting a synthetic LongMemEval-shaped haystack (generated
// in memory, never written to the repository), as a multiple of the
// episode's JSON size (heap-x-json) and in MB. ARBOR_HEAP_TURNS sets the
// number of committed turns (default 600; an _m haystack is about 5,000,
// about 5.6 MB of JSON); ARBOR_HEAP_PROFILE=FILE writes a heap profile
// while the episode is alive (go tool pprof -sample_index=inuse_space).
func BenchmarkEpisodeHeap(b *testing.B) {
	turns := 600
	if v, err := strconv.Atoi(os.Getenv("ARBOR_HEAP_TURNS")); err == nil && v > 0 {
		turns = v
	}
	ep := SyntheticLongMemEval(turns, 40, 160)
	js, err := json.Marshal(ep)
	if err != nil {
		b.Fatal(err)
	}
	cfg := testConfig(b)
	d, err := newMemoryDeps(context.Background(), cfg, "longmemeval")
	if err != nil {
		b.Fatal(err)
	}
	f, err := d.factory("arbormem", "")
	if err != nil {
		b.Fatal(err)
	}
	// Shared, not per episode: the Qwen3 vocabulary, loaded on first count.
	d.models.Tokens.Count("warm up")
	var live float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sys, err := f(context.Background(), ep.ID)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range ep.Steps {
			if err := sys.Commit(context.Background(), *st.Interaction); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		if path := os.Getenv("ARBOR_HEAP_PROFILE"); path != "" {
			// The profile is written while the episode is alive (a
			// -memprofile at exit would find it collected).
			if err := writeHeapProfile(path); err != nil {
				b.Fatal(err)
			}
		}
		runtime.KeepAlive(sys)
	}
	b.ReportMetric(live/float64(len(js)), "heap-x-json")
	b.ReportMetric(live/1e6, "heap-MB")
	b.ReportMetric(float64(len(js))/1e6, "json-MB")
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
