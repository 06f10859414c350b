package runners

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// BenchmarkEpisodeHeap measures the live heap one offline ArborMem episode
// holds after ingesting a synthetic LongMemEval-shaped haystack (generated
// in memory, never written to the repository), as a multiple of the
// episode's JSON size (heap-x-json) and in MB. ARBOR_HEAP_TURNS sets the
// number of committed turns (default 600; an _m haystack is about 5,000,
// about 7.8 MB of JSON); ARBOR_HEAP_PROFILE=FILE writes a heap profile
// while the episode is alive (go tool pprof -sample_index=inuse_space).
// ARBOR_HEAP_DENSE=1 projects the model path: every embedding is made dense
// (a small distinct value added to each slot, as a model's 1,024-d vector has no
// zero slot), and stores them as the model path does (arbormem.vector_storage
// and fact_vector_storage auto: int8 rows for nodes and records, int4 for
// facts); ARBOR_HEAP_STORAGE=float32, int8 or int4 stores every channel so,
// ARBOR_HEAP_FACT_STORAGE the fact channel alone. ARBOR_HEAP_PROFILE=FILE
// also writes FILE.base, the heap once the episode is dropped: pprof
// -diff_base FILE.base FILE shows the episode's holders alone.
func BenchmarkEpisodeHeap(b *testing.B) {
	turns := 600
	if v, err := strconv.Atoi(os.Getenv("ARBOR_HEAP_TURNS")); err == nil && v > 0 {
		turns = v
	}
	if os.Getenv("ARBOR_HEAP_PROFILE") != "" {
		// Sample every allocation of 4 KB on average, not of 512 KB: the
		// episode's holders are many small slices.
		runtime.MemProfileRate = 4096
	}
	ep := SyntheticLongMemEval(turns, 40, 160)
	js, err := json.Marshal(ep)
	if err != nil {
		b.Fatal(err)
	}
	cfg := testConfig(b)
	if os.Getenv("ARBOR_HEAP_DENSE") == "1" {
		// The projection keeps rule-based operations, whose "auto" is
		// float32: name what "auto" gives the model path (int8 rows, the
		// fact channel's int4).
		cfg.ArborMem.VectorStorage, cfg.ArborMem.FactVectorStorage = "int8", "int4"
		if v := os.Getenv("ARBOR_HEAP_STORAGE"); v != "" {
			cfg.ArborMem.VectorStorage, cfg.ArborMem.FactVectorStorage = v, v
		}
		if v := os.Getenv("ARBOR_HEAP_FACT_STORAGE"); v != "" {
			cfg.ArborMem.FactVectorStorage = v
		}
	}
	d, err := newMemoryDeps(context.Background(), cfg, "longmemeval")
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("ARBOR_HEAP_DENSE") == "1" {
		d.models.Embed = denseEmbedder{d.models.Embed}
	}
	f, err := d.factory("arbormem", "")
	if err != nil {
		b.Fatal(err)
	}
	// Shared, not per episode: the Qwen3 vocabulary, loaded on first count.
	d.models.Tokens.Count("warm up")
	var live float64
	for b.Loop() {
		textmemo.ResetAll()
		var after, released runtime.MemStats
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
		if path := os.Getenv("ARBOR_HEAP_PROFILE"); path != "" {
			// The profile is written while the episode is alive (a
			// -memprofile at exit would find it collected), after a
			// second collection: a profile shows the heap as of the
			// last one but one.
			runtime.GC()
			if err := writeHeapProfile(path); err != nil {
				b.Fatal(err)
			}
		}
		// The episode's heap is what dropping it frees: not the memory
		// of things a run may load once for the whole process (which a
		// before/after difference counted or not by the timing of their
		// loading, 8 MB apart between runs).
		runtime.KeepAlive(sys)
		sys = nil
		runtime.GC()
		runtime.ReadMemStats(&released)
		if path := os.Getenv("ARBOR_HEAP_PROFILE"); path != "" {
			// The heap without the episode, as a base to subtract
			// (pprof -diff_base FILE.base FILE): what is left is the
			// episode's, by allocation site, without the process-wide
			// memos and tables a run loads once.
			runtime.GC()
			if err := writeHeapProfile(path + ".base"); err != nil {
				b.Fatal(err)
			}
		}
		live = float64(after.HeapAlloc) - float64(released.HeapAlloc)
	}
	b.ReportMetric(live/float64(len(js)), "heap-x-json")
	b.ReportMetric(live/1e6, "heap-MB")
	b.ReportMetric(float64(len(js))/1e6, "json-MB")
}

// denseEmbedder fills every slot of its embedder's vectors, for the
// model-path projection of BenchmarkEpisodeHeap.
type denseEmbedder struct{ llm.Embedder }

func (e denseEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := e.Embedder.Embed(ctx, texts)
	for _, v := range vs {
		for i := range v {
			v[i] += 1e-5 * float32(i+1) // every slot set, every value distinct
		}
	}
	return vs, err
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

// BenchmarkOfflineCommit measures one offline commit (rule-based memory
// operations, hashed embeddings) of ArborMem and of BM25, each iteration
// ingesting the whole input into a fresh instance: ms/commit per system in
// wall time and in the process's CPU time (ArborMem's extractors run
// concurrently, and on a shared machine wall time also measures the
// neighbours), and ArborMem's multiple of BM25 in each (logged with -v);
// also the bytes and objects allocated per commit and the garbage
// collector's CPU per commit (runtime/metrics' estimate), since allocation
// is a fifth of an offline commit's CPU through the collector.
// Two inputs:
//
//   - fixture: the BEAM test fixture's eight interactions, about 100 bytes
//     each, where per-commit fixed costs dominate;
//   - beam-sized: 40 interactions the size of BEAM 100K's (a user message of
//     about 150 words and an assistant reply of about 600, so about 1,000
//     tokens per interaction and 100 interactions per 100K-token history),
//     made in memory from the shipped BranchMemEval turns (no BEAM data is
//     shipped). Offline commit cost grows with the text, so this is the
//     issue's "offline ArborMem commit (BEAM)" figure;
//   - with ARBOR_COMMIT_DATA=BENCHMARK:PATH, every interaction of a dataset
//     file of yours (e.g. locomo:locomo10.json), in one instance.
//
// ARBOR_COMMIT_YAML is YAML laid over the default configuration, to price
// one part of the method by turning it off, e.g.
// ARBOR_COMMIT_YAML='arbormem: {localization: false}'.
func BenchmarkOfflineCommit(b *testing.B) {
	fixture, err := allInteractions("beam", "../datasets/beam/testdata/chats/100K")
	if err != nil {
		b.Fatal(err)
	}
	sized, err := benchinput.BeamSized(40, 150, 600)
	if err != nil {
		b.Fatal(err)
	}
	type input struct {
		name, benchmark string
		ins             []dialog.Interaction
	}
	inputs := []input{{"fixture", "beam", fixture}, {"beam-sized", "beam", sized}}
	if spec := os.Getenv("ARBOR_COMMIT_DATA"); spec != "" {
		bench, path, ok := strings.Cut(spec, ":")
		if !ok {
			b.Fatalf("ARBOR_COMMIT_DATA %q: want BENCHMARK:PATH", spec)
		}
		ins, err := allInteractions(bench, path)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, input{bench, bench, ins})
	}
	var overlay []string
	if y := os.Getenv("ARBOR_COMMIT_YAML"); y != "" {
		overlay = append(overlay, y+"\n")
	}
	cfg := testConfig(b, overlay...)
	for _, input := range inputs {
		d, err := newMemoryDeps(context.Background(), cfg, input.benchmark)
		if err != nil {
			b.Fatal(err)
		}
		d.models.Tokens.Count("warm up")
		b.Run(input.name, func(b *testing.B) {
			per, cpu := map[string]float64{}, map[string]float64{}
			for _, system := range []string{"bm25", "arbormem"} {
				f, err := d.factory(system, "")
				if err != nil {
					b.Fatal(err)
				}
				b.Run(system, func(b *testing.B) {
					var total, cpuTotal time.Duration
					var alloc, objects uint64
					var gcCPU float64
					n := 0
					for b.Loop() {
						textmemo.ResetAll() // each run sees the texts for the first time
						sys, err := f(context.Background(), "bench")
						if err != nil {
							b.Fatal(err)
						}
						m0 := readAllocGC()
						t0, c0 := time.Now(), benchinput.ProcessCPU()
						for _, in := range input.ins {
							if err := sys.Commit(context.Background(), in); err != nil {
								b.Fatal(err)
							}
						}
						total += time.Since(t0)
						cpuTotal += benchinput.ProcessCPU() - c0
						m1 := readAllocGC()
						alloc += m1.bytes - m0.bytes
						objects += m1.objects - m0.objects
						gcCPU += m1.gcCPU - m0.gcCPU
						n += len(input.ins)
					}
					per[system] = float64(total) / float64(n) / 1e6
					cpu[system] = float64(cpuTotal) / float64(n) / 1e6
					b.ReportMetric(per[system], "ms/commit")
					b.ReportMetric(cpu[system], "cpu-ms/commit")
					b.ReportMetric(float64(alloc)/float64(n)/1e3, "kB/commit")
					b.ReportMetric(float64(objects)/float64(n), "allocs/commit")
					b.ReportMetric(gcCPU/float64(n)*1e3, "gc-cpu-ms/commit")
				})
			}
			if per["bm25"] > 0 {
				// A parent benchmark prints no result line of its own.
				b.Logf("%s: ArborMem %.3f ms/commit (CPU %.3f), BM25 %.3f ms/commit (CPU %.3f): %.1f× BM25 in time, %.1f× in CPU",
					input.name, per["arbormem"], cpu["arbormem"], per["bm25"], cpu["bm25"], per["arbormem"]/per["bm25"], cpu["arbormem"]/cpu["bm25"])
			}
		})
	}
}

// allocGC is the process's allocation and garbage-collection totals so far.
type allocGC struct {
	bytes, objects uint64
	gcCPU          float64 // seconds
}

// readAllocGC reads allocGC from runtime/metrics (the allocation counts
// are exact; the collector's CPU is the runtime's estimate, updated at
// each collection, so it is meaningful over many commits).
func readAllocGC() allocGC {
	s := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/allocs:objects"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
	}
	metrics.Read(s)
	return allocGC{bytes: s[0].Value.Uint64(), objects: s[1].Value.Uint64(), gcCPU: s[2].Value.Float64()}
}

// allInteractions loads a dataset file and returns every interaction of
// every episode, ids prefixed by the episode's index so that one memory
// instance can take them all.
func allInteractions(benchmark, path string) ([]dialog.Interaction, error) {
	eps, err := datasets.Load(context.Background(), benchmark, path, datasets.Options{})
	if err != nil {
		return nil, err
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("%s %s: no episodes", benchmark, path)
	}
	var out []dialog.Interaction
	for i, ep := range eps {
		for _, st := range ep.Steps {
			if st.Interaction != nil {
				in := *st.Interaction
				in.ID = fmt.Sprintf("e%d-%s", i, in.ID)
				out = append(out, in)
			}
		}
	}
	return out, nil
}
