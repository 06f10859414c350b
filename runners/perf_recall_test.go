package runners

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/internal/vecfixture"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/index"
)

// cacheEntry writes b into the response cache at dir as an embedding entry
// (embed/xx/<sha256 of b>), as pkg/llm's cache lays it out.
func cacheEntry(t testing.TB, dir string, b []byte) {
	t.Helper()
	sum := sha256.Sum256(b)
	key := hex.EncodeToString(sum[:])
	p := filepath.Join(dir, "embed", key[:2], key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// arbv encodes v as the cache stores a vector ("arbv", uint32 dimension,
// little-endian float32s), written here from the format rather than with
// pkg/llm's encoder.
func arbv(v []float32) []byte {
	b := append([]byte("arbv"), binary.LittleEndian.AppendUint32(nil, uint32(len(v)))...)
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// bruteTop is the ids of rows's k nearest q by float64 cosine, ties by
// lower id: exact search computed without pkg/index. It fails the test
// when the k-th and the next are too close for float32 search to be
// sure to order them alike (the fixture would then be ambiguous).
func bruteTop(t *testing.T, rows [][]float32, q []float32, k int) []int {
	t.Helper()
	norm := func(v []float32) float64 {
		var s float64
		for _, f := range v {
			s += float64(f) * float64(f)
		}
		return math.Sqrt(s)
	}
	nq := norm(q)
	type hit struct {
		id int
		s  float64
	}
	hits := make([]hit, len(rows))
	for i, r := range rows {
		var d float64
		for j := range r {
			d += float64(q[j]) * float64(r[j])
		}
		hits[i] = hit{i, d / (nq * norm(r))}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.s != b.s {
			if a.s > b.s {
				return -1
			}
			return 1
		}
		return a.id - b.id
	})
	if k < len(hits) && hits[k-1].s-hits[k].s < 1e-5 {
		t.Fatalf("fixture: the %d-th and %d-th cosines differ by %g: too close to call", k, k+1, hits[k-1].s-hits[k].s)
	}
	ids := make([]int, k)
	for i := range ids {
		ids[i] = hits[i].id
	}
	return ids
}

// printedCells maps each table row of WriteRecallReport's output, by
// "label@rows", to its cells.
func printedCells(out string) map[string][]string {
	cells := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| setting") {
			continue
		}
		parts := strings.Split(strings.Trim(line, "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		cells[parts[0]+"@"+parts[1]] = parts[2:]
	}
	return cells
}

// TestPerfRecallFixture builds a response cache of clustered dense 64-d
// vectors with corrupt entries, zero and non-finite vectors, another
// model's 16-d vectors and a writer's temporary file among them, and
// checks what arbor perf recall reads, skips and counts; that its queries
// are stored vectors kept out of the rows they search; and that every
// printed recall@k equals the one computed here: exact search's top k by
// float64 cosine without pkg/index, each setting's hits from an index of
// its own grown the same way.
func TestPerfRecallFixture(t *testing.T) {
	const dim, n = 64, 1300
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	vecs := vecfixture.Clustered(rng, n, dim, 12, 1.2)
	for _, v := range vecs {
		cacheEntry(t, dir, arbv(v))
	}
	for _, v := range vecfixture.Clustered(rng, 30, 16, 2, 1.2) {
		cacheEntry(t, dir, arbv(v))
	}
	corrupt := [][]byte{nil, []byte(`{"content":"a chat reply"}`), arbv(vecs[0])[:100], append([]byte("xbrv"), arbv(vecs[1])[4:]...)}
	for _, b := range corrupt {
		cacheEntry(t, dir, b)
	}
	nan := slices.Clone(vecs[2])
	nan[5] = float32(math.NaN())
	cacheEntry(t, dir, arbv(make([]float32, dim)))
	cacheEntry(t, dir, arbv(nan))
	if err := os.MkdirAll(filepath.Join(dir, "embed", ".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "embed", ".tmp", "put-1"), arbv(vecs[3]), 0o644); err != nil {
		t.Fatal(err)
	}

	p := RecallPlan{Cache: dir, Queries: 40, Seed: 7, Ks: []int{20, 10}, Reranks: []int{1, 3}, Probe: 3,
		Storage: index.Float32, Sizes: []int{1100, 5000}}
	rep, err := PerfRecall(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	WriteRecallReport(&out, rep)
	s := out.String()

	cv := rep.Read
	if cv.Entries != n+30+len(corrupt)+2 || cv.Undecodable != len(corrupt) || cv.Unusable != 2 {
		t.Errorf("read %d entries, %d undecodable, %d unusable; want %d, %d, 2", cv.Entries, cv.Undecodable, cv.Unusable, n+30+len(corrupt)+2, len(corrupt))
	}
	if rep.Sparse != 0 {
		t.Errorf("%d dense vectors counted as kept sparse", rep.Sparse)
	}
	if cv.Dim != dim || cv.ByDim[dim] != n || cv.ByDim[16] != 30 {
		t.Errorf("dimension %d, by dimension %v", cv.Dim, cv.ByDim)
	}
	for _, want := range []string{
		fmt.Sprintf("Skipped %d undecodable entries", len(corrupt)),
		"Skipped 2 zero or non-finite vectors",
		"64-d 1,300; 16-d 30",
		"40 held out as queries, 1,260 rows searched",
		"leave-one-out",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}

	// The queries and rows are the stored 64-d vectors, each once.
	key := func(v []float32) string { return string(arbv(v)) }
	stored := map[string]int{}
	for _, v := range vecs {
		stored[key(v)]++
	}
	if len(rep.Queries) != 40 || len(rep.Queries)+len(rep.Rows) != n {
		t.Fatalf("%d queries and %d rows of %d vectors", len(rep.Queries), len(rep.Rows), n)
	}
	for _, v := range slices.Concat(rep.Queries, rep.Rows) {
		if stored[key(v)]--; stored[key(v)] < 0 {
			t.Fatalf("a query or row is not a stored vector, or is used twice")
		}
	}

	cells := printedCells(s)
	ks := []int{10, 20}
	below := false
	for _, set := range RecallSettings(rep.Plan) {
		x := index.NewExactWith(dim, set.Options)
		for _, size := range []int{1100, len(rep.Rows)} {
			for i := x.Len(); i < size; i++ {
				x.Add(i, rep.Rows[i])
			}
			x.Search(rep.Queries[0], ks[0]) // the report's untimed first search (IVF trains)
			got := cells[set.Label+"@"+strconv.Itoa(size)]
			if len(got) < len(ks) {
				t.Fatalf("no printed row %s at %d rows:\n%s", set.Label, size, s)
			}
			for ki, k := range ks {
				var sum float64
				for _, q := range rep.Queries {
					want := bruteTop(t, rep.Rows[:size], q, k)
					var ids []int
					for _, h := range x.Search(q, k) {
						ids = append(ids, h.ID)
					}
					hit := 0
					for _, w := range want {
						if slices.Contains(ids, w) {
							hit++
						}
					}
					sum += float64(hit) / float64(k)
				}
				recall := sum / float64(len(rep.Queries))
				if got[ki] != strconv.FormatFloat(recall, 'f', 4, 64) {
					t.Errorf("%s at %d rows: printed recall@%d %s, computed %.4f", set.Label, size, k, got[ki], recall)
				}
				below = below || recall < 1
			}
		}
	}
	if !below {
		t.Error("every setting found every neighbour: the fixture does not exercise the approximate stages")
	}
	if !strings.Contains(s, "binary, vector_rerank 1, float32: not met") {
		t.Errorf("a one-k short list over 64-d sign bits should miss the bar:\n%s", s)
	}
}

// TestPerfRecallFakeCache measures the response cache a model-path run
// against the speaking fake wrote: every entry is one of its 1,024-d
// embeddings, all read; the fake embeds with the offline embedder, whose
// sparse vectors every setting scores exactly, which the report says
// rather than deciding the bar on them.
func TestPerfRecallFakeCache(t *testing.T) {
	cfg, _ := speakingCached(t)
	if _, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, RunID: "cached",
		Config: cfg, Out: io.Discard, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	files := 0
	if err := filepath.WalkDir(filepath.Join(cfg.CacheDir(), "embed"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rep, err := PerfRecall(context.Background(), RecallPlan{Cache: cfg.CacheDir(), Queries: 20, Seed: 1, Ks: []int{20, 40, 60},
		Reranks: []int{10}, Probe: 32, Storage: index.Int8, Sizes: []int{4000}})
	if err != nil {
		t.Fatal(err)
	}
	cv := rep.Read
	if files == 0 || cv.Entries != files || cv.Undecodable != 0 || cv.Dim != 1024 || cv.ByDim[1024]+cv.Unusable+cv.Duplicates != files {
		t.Fatalf("%d files; read %d entries, %d undecodable, %d unusable, %d duplicates, dimensions %v", files, cv.Entries, cv.Undecodable, cv.Unusable, cv.Duplicates, cv.ByDim)
	}
	if rep.Sparse == 0 || rep.Sparse > len(cv.Vectors) {
		t.Errorf("%d of %d fake vectors kept sparse; the offline embedder's are mostly zero", rep.Sparse, len(cv.Vectors))
	}
	if len(rep.Rows) >= index.ApproxMin {
		t.Fatalf("%d rows: the fixture meant a cache too small for the approximate stages", len(rep.Rows))
	}
	for _, r := range rep.Results {
		if r.Setting.Options.Storage != index.Float32 && r.Setting.Options.Search == index.ExactSearch {
			continue // quantised rows move scores at any size
		}
		for ki, v := range r.Recall {
			if !math.IsNaN(v) && v != 1 {
				t.Errorf("%s at %d rows: recall@%d %.4f under %d rows, where every row is scored", r.Setting.Label, r.Rows, rep.Plan.Ks[ki], v, index.ApproxMin)
			}
		}
	}
	var out strings.Builder
	WriteRecallReport(&out, rep)
	if s := out.String(); !strings.Contains(s, "too small to decide") || strings.Contains(s, ": met") {
		t.Errorf("the report decides the bar on %d rows:\n%s", len(rep.Rows), s)
	}
}

// TestPerfRecallNoVectors: a folder without a decodable vector is a clear
// error naming what it found, never a crash or an empty table.
func TestPerfRecallNoVectors(t *testing.T) {
	junk := t.TempDir()
	cacheEntry(t, junk, []byte("not a vector"))
	cacheEntry(t, junk, arbv(make([]float32, 8)))
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "none"), "no such file"},
		{"empty", t.TempDir(), "no cached embeddings under"},
		{"junk", junk, "2 entries, 1 undecodable, 1 zero or non-finite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PerfRecall(context.Background(), RecallPlan{Cache: tc.dir, Ks: []int{20}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestRecallApproxMinMatchesIndex: index.ApproxMin, which perf recall
// uses to mark the settings that searched every row, is the threshold the
// index applies: a binary index with the shortest list answers as exact
// search one row below it and differs from it at it.
func TestRecallApproxMinMatchesIndex(t *testing.T) {
	const dim, k = 32, 20
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := vecfixture.Clustered(rng, index.ApproxMin+20, dim, 40, 1.2)
	ex, bi := index.NewExact(dim), index.NewExactWith(dim, index.Options{Search: index.Binary, Rerank: 1})
	differ := func() bool {
		for _, q := range vecs[index.ApproxMin:] {
			a, b := ex.Search(q, k), bi.Search(q, k)
			if !slices.Equal(a, b) {
				return true
			}
		}
		return false
	}
	for i, v := range vecs[:index.ApproxMin-1] {
		ex.Add(i, v)
		bi.Add(i, v)
	}
	if differ() || approximateAt(index.Options{Search: index.Binary, Rerank: 1}, index.ApproxMin-1, k) {
		t.Fatalf("binary search is approximate at %d rows", index.ApproxMin-1)
	}
	ex.Add(index.ApproxMin-1, vecs[index.ApproxMin-1])
	bi.Add(index.ApproxMin-1, vecs[index.ApproxMin-1])
	if !differ() || !approximateAt(index.Options{Search: index.Binary, Rerank: 1}, index.ApproxMin, k) {
		t.Fatalf("binary search is exact at %d rows: pkg/index's threshold moved", index.ApproxMin)
	}
}

// TestStoredSparse: the rows pkg/index keeps sparse (mostly zero) are told
// from those it keeps dense, whatever their scale.
func TestStoredSparse(t *testing.T) {
	const dim = 64
	rng := rand.New(rand.NewPCG(8, 9))
	dense := vecfixture.Clustered(rng, 2, dim, 1, 1.2)
	sparse := make([]float32, dim)
	scaled := make([]float32, dim)
	for _, i := range []int{3, 17, 40} {
		sparse[i] = float32(rng.NormFloat64())
		scaled[i] = 7 * sparse[i]
	}
	for _, tc := range []struct {
		name string
		vecs [][]float32
		want int
	}{
		{"dense", dense, 0},
		{"sparse", [][]float32{sparse}, 1},
		{"sparse scaled", [][]float32{scaled}, 1},
		{"mixed", [][]float32{dense[0], sparse, dense[1]}, 1},
	} {
		if got := storedSparse(dim, tc.vecs); got != tc.want {
			t.Errorf("%s: %d kept sparse, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPerfRecallSample: a cache larger than --max-rows is sampled down to
// the rows plus the queries, distinct stored vectors, the same for the
// same seed and another for another seed.
func TestPerfRecallSample(t *testing.T) {
	dir := t.TempDir()
	vecs := vecfixture.Clustered(rand.New(rand.NewPCG(1, 1)), 200, 8, 4, 1.2)
	stored := map[string]bool{}
	for _, v := range vecs {
		cacheEntry(t, dir, arbv(v))
		stored[string(arbv(v))] = true
	}
	sample := func(seed uint64) []string {
		rep, err := PerfRecall(context.Background(), RecallPlan{Cache: dir, Queries: 10, MaxRows: 50, Seed: seed, Ks: []int{5}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Queries) != 10 || len(rep.Rows) != 50 {
			t.Fatalf("seed %d: %d queries, %d rows; want 10 and 50", seed, len(rep.Queries), len(rep.Rows))
		}
		var keys []string
		seen := map[string]bool{}
		for _, v := range slices.Concat(rep.Queries, rep.Rows) {
			k := string(arbv(v))
			if !stored[k] || seen[k] {
				t.Fatalf("seed %d: a sampled vector is not stored or is drawn twice", seed)
			}
			seen[k] = true
			keys = append(keys, k)
		}
		return keys
	}
	a, b, c := sample(3), sample(3), sample(4)
	if !slices.Equal(a, b) {
		t.Error("the same seed drew another sample")
	}
	if slices.Equal(a, c) {
		t.Error("another seed drew the same sample")
	}
}

// BenchmarkPerfRecall runs arbor perf recall's measurement on a synthetic
// cache of ARBOR_RECALL_ROWS (16,000) dense clustered 1,024-d vectors
// around 400 centres (40 a cluster, so past k 20 exact search's order is
// noise): a fixture for the command's cost and output, not evidence about
// a model's vectors. -v prints the report.
//
//	go test ./runners -run '^$' -bench PerfRecall -benchtime 1x -v
func BenchmarkPerfRecall(b *testing.B) {
	n := 16000
	if s := os.Getenv("ARBOR_RECALL_ROWS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	for _, v := range vecfixture.Clustered(rand.New(rand.NewPCG(11, 12)), n, 1024, 400, 1.2) {
		cacheEntry(b, dir, arbv(v))
	}
	p := RecallPlan{Cache: dir, Queries: 200, Seed: 1, Ks: []int{20, 40, 60}, Reranks: []int{5, 10, 20}, Probe: 32,
		Storage: index.Float32, Sizes: []int{4000, 12000}}
	b.ResetTimer()
	for b.Loop() {
		cpu := benchinput.ProcessCPU()
		rep, err := PerfRecall(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric((benchinput.ProcessCPU() - cpu).Seconds(), "cpu-s")
		var out strings.Builder
		WriteRecallReport(&out, rep)
		b.Log("\n" + out.String())
	}
}

// TestReadCachedVectorsDuplicates: one vector cached under several keys
// (one text under two model names) is read once and the rest counted, so
// leave-one-out holds: no query finds its own twin among the rows, and
// exact search's best hit is never the query itself (cosine 1).
func TestReadCachedVectorsDuplicates(t *testing.T) {
	const n, dim = 60, 16
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		for c := range 1 + i%3 { // once, twice or three times
			key := fmt.Sprintf("%02x%062x", c, i)
			p := filepath.Join(dir, "embed", key[:2], key)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, arbv(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cv, err := ReadCachedVectors(dir, 0, 0, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cv.Entries != 2*n || cv.Duplicates != n || len(cv.Vectors) != n || cv.ByDim[dim] != n {
		t.Fatalf("read %d entries, %d duplicates, kept %d (by dimension %v); want %d, %d, %d", cv.Entries, cv.Duplicates, len(cv.Vectors), cv.ByDim, 2*n, n, n)
	}
	var out strings.Builder
	rep, err := PerfRecall(context.Background(), RecallPlan{Cache: dir, Queries: 10, Seed: 1, Ks: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	WriteRecallReport(&out, rep)
	if !strings.Contains(out.String(), fmt.Sprintf("Skipped %d vectors identical to one read before", n)) {
		t.Errorf("the report does not count the duplicates:\n%s", out.String())
	}
	for _, r := range rep.Results {
		if r.Setting.Reference && !(r.KthCosine[0] < 0.999) {
			t.Errorf("exact search's best hit, mean cosine %.4f: a query found its twin", r.KthCosine[0])
		}
	}
}

// noHits is an index whose searches return nothing, as an IVF index does
// when the groups it probes are empty.
type noHits struct{}

func (noHits) Search([]float32, int) []index.Hit { return nil }

// TestMeasureKNoHits: a search that returns no hit counts as recall 0
// against a reference that had some, and leaves the k-th cosine to the
// searches that returned any, rather than panicking.
func TestMeasureKNoHits(t *testing.T) {
	qs := [][]float32{{1, 0}, {0, 1}}
	ids, recall, kth, took := measureK(noHits{}, qs, 2, [][]int{{0, 1}, {1, 0}}, true)
	if len(ids) != 2 || len(ids[0]) != 0 || recall != 0 || !math.IsNaN(kth) || len(took) != 2 {
		t.Errorf("no hits: ids %v, recall %v, kth %v, %d times; want 2 empty, 0, NaN, 2", ids, recall, kth, len(took))
	}
	x := index.NewExact(2)
	x.Add(0, []float32{1, 0})
	ids, recall, kth, _ = measureK(x, qs, 1, nil, false)
	if len(ids) != 2 || recall != 1 || math.Abs(kth-0.5) > 1e-6 {
		t.Errorf("reference: ids %v, recall %v, kth %v; want 2 lists, 1, 0.5 (cosines 1 and 0)", ids, recall, kth)
	}
}

// TestPerfRecallChannelStorages: with KsOf, each approximate setting is
// measured over one storage's rows at that storage's k alone (blank
// elsewhere), the reference at every k; ChannelStorageKs puts the fact
// channel's k under its own storage.
func TestPerfRecallChannelStorages(t *testing.T) {
	cfg := config.DefaultArborMem()
	kinds := ChannelStorageKs(cfg, index.Int8, index.Int4)
	if !slices.Equal(kinds[index.Int8], []int{20, 60}) || !slices.Equal(kinds[index.Int4], []int{40}) || len(kinds) != 2 {
		t.Fatalf("ChannelStorageKs(default, int8, int4) = %v, want int8 at 20, 60 and int4 at 40", kinds)
	}
	if same := ChannelStorageKs(cfg, index.Int8, index.Int8); !slices.Equal(same[index.Int8], []int{20, 40, 60}) || len(same) != 1 {
		t.Fatalf("ChannelStorageKs(default, int8, int8) = %v, want int8 at 20, 40, 60", same)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, v := range vecfixture.Clustered(rng, 60, 16, 4, 1.2) {
		cacheEntry(t, dir, arbv(v))
	}
	rep, err := PerfRecall(context.Background(), RecallPlan{Cache: dir, Queries: 10, Seed: 1, Reranks: []int{2}, Probe: 4,
		KsOf: map[index.Storage][]int{index.Int8: {2, 5}, index.Int4: {3}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Plan.Ks, []int{2, 3, 5}) {
		t.Fatalf("measured k %v, want every storage's: 2, 3, 5", rep.Plan.Ks)
	}
	seen := map[string]bool{}
	for _, r := range rep.Results {
		seen[r.Setting.Label] = true
		for ki, k := range rep.Plan.Ks {
			want := true // measured at k
			switch r.Setting.Options.Storage {
			case index.Int8:
				want = r.Setting.Reference || r.Setting.Options.Search == index.ExactSearch || k != 3
			case index.Int4:
				want = r.Setting.Options.Search == index.ExactSearch || k == 3
			}
			if got := !math.IsNaN(r.Recall[ki]); got != want {
				t.Errorf("%s: measured at k %d %v, want %v", r.Setting.Label, k, got, want)
			}
		}
		if wantK := map[bool]int{true: 3, false: 2}[r.Setting.Options.Storage == index.Int4 && r.Setting.Options.Search != index.ExactSearch]; r.TimedK != wantK {
			t.Errorf("%s: timed at k %d, want %d", r.Setting.Label, r.TimedK, wantK)
		}
	}
	for _, l := range []string{"binary, vector_rerank 2, int8", "binary, vector_rerank 2, int4", "ivf, ivf_probe 4, int8", "ivf, ivf_probe 4, int4"} {
		if !seen[l] {
			t.Errorf("no %q row (rows: %v)", l, seen)
		}
	}
}
