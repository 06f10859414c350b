package runners

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
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
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/table"
)

// RecallBar is issue 32's condition for an approximate search to stand in
// for exact search in the reference configuration: recall@k against exact
// float32 search of at least this, at every channel's k, on real data.
const RecallBar = 0.995

// RecallPlan configures PerfRecall (arbor perf recall): the response
// cache whose embeddings are measured, the sample drawn from them and the
// search settings compared with exact float32 search.
type RecallPlan struct {
	// Cache is a response cache folder (holding embed/) or its embed
	// folder itself.
	Cache string
	// Queries is how many sampled vectors are held out as queries (at
	// most a fifth of the sample).
	Queries int
	// Seed draws the sample and the queries: the same cache and seed give
	// the same figures (times aside).
	Seed uint64
	// Ks are the depths measured: the dense channels' k (ChannelKs).
	Ks []int
	// Reranks are the binary stage's short lists measured, as multiples
	// of k (arbormem.vector_rerank).
	Reranks []int
	// Probe is the IVF groups scored per search (arbormem.ivf_probe).
	Probe int
	// Storage is the storage of the binary and IVF indexes' rows
	// (arbormem.vector_storage; StorageFor resolves it) where KsOf is
	// empty.
	Storage index.Storage
	// KsOf, when set, is the k searched over each storage's rows: the
	// binary and IVF settings are measured over each storage at its k
	// alone, as a run's channels keep their rows (ChannelStorageKs: the
	// fact channel int4, nodes and records int8 under auto). Empty:
	// every k over Storage.
	KsOf map[index.Storage][]int
	// Sizes are index sizes measured below the full sample, each by the
	// first that many rows (those at or above the sample are dropped).
	Sizes []int
	// MaxRows bounds the index: a cache holding more vectors is sampled
	// (uniformly, by Seed) down to MaxRows plus the queries. 0: no bound.
	MaxRows int
	// Dim picks the dimension measured when the cache holds several
	// models' vectors (0: the most common).
	Dim int
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// ChannelKs are the k of ArborMem's three dense searches under cfg: the
// node channel's (semantic_candidates), the fact channel's (four per fact
// kept, at least 40, as assemble.go asks) and the record channel's
// (record_candidates), ascending and distinct.
func ChannelKs(cfg config.ArborMem) []int {
	ks := []int{cfg.SemanticCandidates, arbormem.FactSearchDepth(cfg), cfg.RecordCandidates}
	ks = slices.DeleteFunc(ks, func(k int) bool { return k <= 0 })
	slices.Sort(ks)
	return slices.Compact(ks)
}

// ChannelStorageKs is the k each storage's rows are searched at under
// cfg, the node and record channels' rows kept as channels and the fact
// channel's as facts (arbormem.VectorStorages resolves both), for
// RecallPlan.KsOf. A k two channels share on different storages is listed
// under both.
func ChannelStorageKs(cfg config.ArborMem, channels, facts index.Storage) map[index.Storage][]int {
	out := map[index.Storage][]int{}
	for _, c := range []struct {
		k  int
		st index.Storage
	}{{cfg.SemanticCandidates, channels}, {arbormem.FactSearchDepth(cfg), facts}, {cfg.RecordCandidates, channels}} {
		if c.k > 0 && !slices.Contains(out[c.st], c.k) {
			out[c.st] = append(out[c.st], c.k)
		}
	}
	for _, ks := range out {
		slices.Sort(ks)
	}
	return out
}

// StorageFor resolves a --storage name as the model path does (auto:
// int8, since a real run's memory operations use a model), by
// arbormem.VectorStorages' rules for vector_storage.
func StorageFor(name string) (index.Storage, error) {
	switch name {
	case "float32", "int8", "int4", "auto", "":
		channels, _ := arbormem.VectorStorages(config.ArborMem{VectorStorage: name}, false)
		return channels, nil
	}
	return 0, fmt.Errorf("perf recall: storage %q: want float32, int8 or int4", name)
}

// StorageName is s as vector_storage spells it.
func StorageName(s index.Storage) string {
	switch s {
	case index.Int8:
		return "int8"
	case index.Int4:
		return "int4"
	}
	return "float32"
}

// CachedVectors is what ReadCachedVectors found in a response cache's
// embeddings.
type CachedVectors struct {
	// Dir is the embed folder read.
	Dir string
	// Entries is the files read; Undecodable those that are not a vector
	// (skipped), FirstUndecodable the first of them (relative to Dir).
	Entries, Undecodable int
	FirstUndecodable     string
	// Unusable is the vectors skipped for having no direction: all zero,
	// or with a non-finite component (a search scores them 0 against
	// everything).
	Unusable int
	// Duplicates is the vectors skipped for repeating one read before, bit
	// for bit: a cache can hold one text under two keys (two model names
	// for one model, or a request that differs only outside the text), and
	// a query whose twin stayed in the index would find itself.
	Duplicates int
	// ByDim counts the usable, distinct vectors of each dimension.
	ByDim map[int]int
	// Dim is the dimension kept, and Vectors a uniform sample of its
	// vectors (all of them up to the limit), in a seeded random order.
	Dim     int
	Vectors [][]float32
}

// ReadCachedVectors reads every entry of a response cache's embeddings
// (dir/embed/xx/<sha256>, or dir itself when it has no embed folder),
// counting and skipping what does not decode, and keeps a seeded uniform
// sample of at most limit (0: all) vectors of dimension dim (0: the most
// common; ties to the smaller), shuffled by seed. Vectors are sampled by
// reservoir, so memory stays bounded by limit per dimension whatever the
// cache's size. It fails when the folder holds no vector at all.
func ReadCachedVectors(dir string, dim, limit int, seed uint64, log io.Writer) (*CachedVectors, error) {
	root := dir
	if st, err := os.Stat(filepath.Join(dir, "embed")); err == nil && st.IsDir() {
		root = filepath.Join(dir, "embed")
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("perf recall: response cache (--cache names another folder): %w", err)
	}
	cv := &CachedVectors{Dir: root, ByDim: map[int]int{}}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	res := map[int]*reservoir{}
	seen := vectorSet{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			cv.undecodable(root, path) // an unreadable folder: its entries are lost
			return nil
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir // a cache's .tmp: writes not yet renamed into place
			}
			return nil
		}
		cv.Entries++
		if log != nil && cv.Entries%50000 == 0 {
			fmt.Fprintf(log, "perf recall: %d entries read\n", cv.Entries)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			cv.undecodable(root, path)
			return nil
		}
		v, ok := llm.DecodeVector(b)
		if !ok {
			cv.undecodable(root, path)
			return nil
		}
		if !usable(v) {
			cv.Unusable++
			return nil
		}
		if !seen.add(v) {
			cv.Duplicates++
			return nil
		}
		cv.ByDim[len(v)]++
		r := res[len(v)]
		if r == nil {
			r = &reservoir{limit: limit}
			res[len(v)] = r
		}
		r.offer(rng, v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("perf recall: reading %s: %w", root, err)
	}
	if len(cv.ByDim) == 0 {
		return nil, fmt.Errorf("perf recall: no cached embeddings under %s (%d entries, %d undecodable, %d zero or non-finite): "+
			"a run with cache.enabled writes each embedding to embed/xx/<sha256> under its cache folder (cache.dir, default <results>/.cache/llm)",
			root, cv.Entries, cv.Undecodable, cv.Unusable)
	}
	cv.Dim = dim
	if dim == 0 {
		for d, n := range cv.ByDim {
			if n > cv.ByDim[cv.Dim] || n == cv.ByDim[cv.Dim] && d < cv.Dim {
				cv.Dim = d
			}
		}
	}
	r := res[cv.Dim]
	if r == nil {
		return nil, fmt.Errorf("perf recall: no %d-d vectors under %s (dimensions found: %s)", dim, root, dimList(cv.ByDim))
	}
	cv.Vectors = r.kept
	// The reservoir's order depends on where replacements fell; a shuffle
	// makes any prefix a uniform sample (queries first, then rows).
	rand.New(rand.NewPCG(seed, 0x5b1ff1e)).Shuffle(len(cv.Vectors), func(i, j int) {
		cv.Vectors[i], cv.Vectors[j] = cv.Vectors[j], cv.Vectors[i]
	})
	return cv, nil
}

func (cv *CachedVectors) undecodable(root, path string) {
	cv.Undecodable++
	if cv.FirstUndecodable == "" {
		if rel, err := filepath.Rel(root, path); err == nil {
			path = rel
		}
		cv.FirstUndecodable = path
	}
}

// vectorSet holds the vectors read so far by the SHA-256 of their bits
// (exact: a collision is out of reach), since the vectors themselves are
// not all kept.
type vectorSet map[[sha256.Size]byte]struct{}

// add reports whether v is new, recording it.
func (s vectorSet) add(v []float32) bool {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	key := sha256.Sum256(b)
	if _, ok := s[key]; ok {
		return false
	}
	s[key] = struct{}{}
	return true
}

// usable reports whether v has a direction: finite and not all zero.
func usable(v []float32) bool {
	nz := false
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
		nz = nz || f != 0
	}
	return nz
}

// reservoir keeps a uniform sample of at most limit (0: every) vectors
// offered (Vitter's algorithm R).
type reservoir struct {
	limit int
	seen  int
	kept  [][]float32
}

func (r *reservoir) offer(rng *rand.Rand, v []float32) {
	r.seen++
	if r.limit <= 0 || len(r.kept) < r.limit {
		r.kept = append(r.kept, v)
		return
	}
	if j := rng.IntN(r.seen); j < r.limit {
		r.kept[j] = v
	}
}

// dimList is "1024-d 12,000; 768-d 30", most vectors first.
func dimList(by map[int]int) string {
	dims := make([]int, 0, len(by))
	for d := range by {
		dims = append(dims, d)
	}
	slices.SortFunc(dims, func(a, b int) int {
		if by[a] != by[b] {
			return by[b] - by[a]
		}
		return a - b
	})
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprintf("%d-d %s", d, thousands(by[d]))
	}
	return strings.Join(parts, "; ")
}

// RecallSetting is one index setting measured against exact float32
// search.
type RecallSetting struct {
	// Label names it in the table ("binary, vector_rerank 10").
	Label   string
	Options index.Options
	// Reference marks exact float32 search, what the others are measured
	// against (its recall is 1 by definition).
	Reference bool
	// Ks are the k it is measured at (nil: every k of the plan): those
	// of the channels whose rows its storage is.
	Ks []int
}

// RecallResult is one setting at one index size.
type RecallResult struct {
	Setting RecallSetting
	Rows    int
	// Recall is the mean recall@k over the queries, per k of the plan
	// (NaN where k exceeds the rows or the setting is not measured at k:
	// its storage is not that channel's).
	Recall []float64
	// Approximate reports, per k, whether the setting's first stage took
	// part (an IVF or binary index under index.ApproxMin rows, or a short
	// list as long as the index, scores every row).
	Approximate []bool
	// Median is the median wall time of one search at TimedK, the first
	// k the setting is measured at (0: none within the rows), one
	// goroutine.
	Median time.Duration
	TimedK int
	// KthCosine is, per k, the mean cosine of the k-th hit: how near the
	// tail of the top k lies to unrelated texts, whose order is noise.
	KthCosine []float64
}

// RecallReport is PerfRecall's outcome: what was read and every result.
type RecallReport struct {
	Plan    RecallPlan
	Read    *CachedVectors
	Queries [][]float32
	Rows    [][]float32
	// Sparse is the sampled vectors pkg/index keeps as sparse rows
	// (storedSparse), which every setting scores exactly.
	Sparse  int
	Results []RecallResult
}

// RecallSettings are the settings PerfRecall compares, the reference
// first: exact search over int8 and int4 rows, then for each storage of
// p.KsOf (p.Storage alone when it is empty) the binary stage at each of
// p.Reranks and IVF at p.Probe over rows of that storage, at its k.
func RecallSettings(p RecallPlan) []RecallSetting {
	out := []RecallSetting{
		{Label: "exact, float32 (reference)", Reference: true},
		{Label: "exact, int8", Options: index.Options{Storage: index.Int8}},
		{Label: "exact, int4", Options: index.Options{Storage: index.Int4}},
	}
	kinds := map[index.Storage][]int{p.Storage: nil}
	if len(p.KsOf) > 0 {
		kinds = p.KsOf
	}
	for _, st := range sortedStorages(kinds) {
		ks, name := kinds[st], StorageName(st)
		for _, r := range p.Reranks {
			out = append(out, RecallSetting{Label: fmt.Sprintf("binary, vector_rerank %d, %s", r, name),
				Options: index.Options{Storage: st, Search: index.Binary, Rerank: r}, Ks: ks})
		}
		if p.Probe > 0 {
			out = append(out, RecallSetting{Label: fmt.Sprintf("ivf, ivf_probe %d, %s", p.Probe, name),
				Options: index.Options{Storage: st, Search: index.IVF, Probe: p.Probe}, Ks: ks})
		}
	}
	return out
}

// sortedStorages is m's storages, finest first (float32, int8, int4).
func sortedStorages(m map[index.Storage][]int) []index.Storage {
	out := make([]index.Storage, 0, len(m))
	for st := range m {
		out = append(out, st)
	}
	slices.Sort(out)
	return out
}

// PerfRecall measures approximate vector search on a real run's
// embeddings: it reads the vectors the run's response cache holds
// (ReadCachedVectors), holds a seeded sample of them out as queries, and
// searches the rest with pkg/index's own indexes — exact float32 (the
// reference), exact int8 and int4, the binary first stage at each short
// list, IVF — at each size of p.Sizes and at the whole sample, each index
// grown through the sizes as a memory grows. Each setting's recall@k is
// the share of exact float32 search's top k it returns, averaged over the
// queries. Queries are stored vectors, never in the index they search
// (leave-one-out), so none finds itself.
func PerfRecall(ctx context.Context, p RecallPlan) (*RecallReport, error) {
	p.Ks = slices.DeleteFunc(slices.Clone(p.Ks), func(k int) bool { return k <= 0 })
	if len(p.KsOf) > 0 {
		kinds := map[index.Storage][]int{}
		for st, ks := range p.KsOf {
			for _, k := range ks {
				if k > 0 && !slices.Contains(kinds[st], k) {
					kinds[st] = append(kinds[st], k)
					p.Ks = append(p.Ks, k) // every storage's k is measured
				}
			}
		}
		for _, ks := range kinds {
			slices.Sort(ks)
		}
		p.KsOf = kinds
	}
	if len(p.Ks) == 0 {
		return nil, errors.New("perf recall: no positive k to measure")
	}
	if p.Queries <= 0 {
		p.Queries = 200
	}
	slices.Sort(p.Ks)
	p.Ks = slices.Compact(p.Ks)
	limit := 0
	if p.MaxRows > 0 {
		limit = p.MaxRows + p.Queries
	}
	cv, err := ReadCachedVectors(p.Cache, p.Dim, limit, p.Seed, p.Log)
	if err != nil {
		return nil, err
	}
	n := len(cv.Vectors)
	if n < 2 {
		return nil, fmt.Errorf("perf recall: %d usable %d-d vector under %s: need two, a query and a row", n, cv.Dim, cv.Dir)
	}
	q := min(p.Queries, max(1, n/5))
	rep := &RecallReport{Plan: p, Read: cv, Queries: cv.Vectors[:q], Rows: cv.Vectors[q:]}
	rep.Sparse = storedSparse(cv.Dim, cv.Vectors)
	var sizes []int
	for _, s := range p.Sizes {
		if s > 0 && s < len(rep.Rows) {
			sizes = append(sizes, s)
		}
	}
	slices.Sort(sizes)
	sizes = append(slices.Compact(sizes), len(rep.Rows))
	rep.Plan.Sizes = sizes
	// ref[s][k][q] is exact float32 search's top k ids.
	var ref [][][][]int
	for _, set := range RecallSettings(p) {
		if p.Log != nil {
			fmt.Fprintf(p.Log, "perf recall: %s\n", set.Label)
		}
		x := index.NewExactWith(cv.Dim, set.Options)
		for si, size := range sizes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for i := x.Len(); i < size; i++ {
				x.Add(i, rep.Rows[i])
			}
			x.Search(rep.Queries[0], p.Ks[0]) // trains IVF's groups, untimed
			res := RecallResult{Setting: set, Rows: size, Recall: make([]float64, len(p.Ks)),
				Approximate: make([]bool, len(p.Ks)), KthCosine: make([]float64, len(p.Ks))}
			if set.Reference {
				ref = append(ref, make([][][]int, len(p.Ks)))
			}
			var times []time.Duration
			for ki, k := range p.Ks {
				res.Approximate[ki] = approximateAt(set.Options, size, k)
				if k > size || set.Ks != nil && !slices.Contains(set.Ks, k) {
					res.Recall[ki], res.KthCosine[ki] = math.NaN(), math.NaN()
					continue
				}
				var want [][]int
				if !set.Reference {
					want = ref[si][ki]
				}
				timed := res.TimedK == 0
				if timed {
					res.TimedK = k
				}
				ids, recall, kth, took := measureK(x, rep.Queries, k, want, timed)
				if set.Reference {
					ref[si][ki] = ids
				}
				times = append(times, took...)
				res.Recall[ki], res.KthCosine[ki] = recall, kth
			}
			if len(times) > 0 {
				slices.Sort(times)
				res.Median = times[len(times)/2]
			}
			rep.Results = append(rep.Results, res)
		}
	}
	return rep, nil
}

// searcher is the search measureK times: an index.Exact, whatever its
// options.
type searcher interface {
	Search(q []float32, k int) []index.Hit
}

// measureK runs every query's top-k search on x and returns each one's
// ids, their mean recall against want's (nil: x is the reference, recall
// 1), the mean score of each search's k-th (last) hit over the searches
// that returned any (NaN if none did: an IVF index whose probed groups
// are empty returns nothing), and, when timed, each search's wall time.
func measureK(x searcher, queries [][]float32, k int, want [][]int, timed bool) (ids [][]int, recall, kth float64, took []time.Duration) {
	var sum, kthSum float64
	hit := 0
	for qi, qv := range queries {
		t0 := time.Now()
		hits := x.Search(qv, k)
		if timed {
			took = append(took, time.Since(t0))
		}
		got := make([]int, len(hits))
		for i, h := range hits {
			got[i] = h.ID
		}
		ids = append(ids, got)
		if want != nil {
			sum += recallOf(got, want[qi])
		} else {
			sum++
		}
		if len(hits) > 0 {
			kthSum += hits[len(hits)-1].Score
			hit++
		}
	}
	recall, kth = math.NaN(), math.NaN()
	if len(queries) > 0 {
		recall = sum / float64(len(queries))
	}
	if hit > 0 {
		kth = kthSum / float64(hit)
	}
	return ids, recall, kth, took
}

// storedSparse counts the vectors pkg/index keeps as sparse rows, which
// have no sign bits and no quantised codes, so every setting scores them
// exactly (the offline embedder's, which the fake endpoint serves). The
// index does not say which rows it keeps so; an int8 index does show it:
// it returns a dense row quantised and a sparse one exactly as a float32
// index does. (A vector that is itself a dequantised int8 row would count
// as sparse; no embedding model writes those.)
func storedSparse(dim int, vecs [][]float32) int {
	f32, i8 := index.NewExact(dim), index.NewExactWith(dim, index.Options{Storage: index.Int8})
	n := 0
	for _, v := range vecs {
		f32.Add(0, v) // replaces the last: one row each
		i8.Add(0, v)
		a, b := f32.Vector(0), i8.Vector(0)
		if slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
			n++
		}
	}
	return n
}

// approximateAt reports whether an index of options o takes its
// approximate first stage for a top-k search over rows (dense) rows, as
// index.Exact.Search decides.
func approximateAt(o index.Options, rows, k int) bool {
	switch o.Search {
	case index.IVF:
		return rows >= index.ApproxMin
	case index.Binary:
		return rows >= index.ApproxMin && max(1, o.Rerank)*k < rows
	}
	return false
}

// recallOf is the share of want's ids that got holds.
func recallOf(got, want []int) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// RecallTable is the report's table: one row per setting and index size.
func RecallTable(rep *RecallReport) table.Table {
	t := table.Table{
		Title: "Recall of approximate vector search on the cached embeddings",
		Caption: "recall@k: the share of exact float32 search's top k a setting returns, mean over the held-out queries. " +
			"Time: median wall time of one search at k " + strconv.Itoa(rep.Plan.Ks[0]) + " (or the first k a row measures), one goroutine (a loaded machine inflates it).",
		Stub:    "setting",
		Columns: []table.Column{{Name: "rows", Decimals: 0}},
	}
	for _, k := range rep.Plan.Ks {
		t.Columns = append(t.Columns, table.Column{Name: fmt.Sprintf("recall@%d", k), Decimals: 4})
	}
	t.Columns = append(t.Columns, table.Column{Name: "time", Unit: "ms", Decimals: 3}, table.Column{Name: "note", Align: table.Left})
	for _, r := range rep.Results {
		cells := []table.Cell{table.V(float64(r.Rows))}
		var exactAt []string
		for ki, k := range rep.Plan.Ks {
			if math.IsNaN(r.Recall[ki]) {
				cells = append(cells, table.Cell{})
				continue
			}
			cells = append(cells, table.V(r.Recall[ki]))
			if r.Setting.Options.Search != index.ExactSearch && !r.Approximate[ki] {
				exactAt = append(exactAt, strconv.Itoa(k))
			}
		}
		note := ""
		switch {
		case len(exactAt) == 0:
		case r.Rows < index.ApproxMin:
			note = fmt.Sprintf("every row scored (under %s rows)", thousands(index.ApproxMin))
		default:
			note = "every row scored at k " + strings.Join(exactAt, ", ") + " (short list ≥ rows)"
		}
		timed := table.Cell{} // the first k exceeds the rows: nothing timed
		if r.TimedK > 0 {
			timed = table.V(float64(r.Median) / float64(time.Millisecond))
		}
		cells = append(cells, timed, table.T(note))
		t.Rows = append(t.Rows, table.Row{Label: r.Setting.Label, Cells: cells})
	}
	return t
}

// WriteRecallReport prints what was read and sampled, the table, and
// whether each approximate setting meets RecallBar at the whole sample.
func WriteRecallReport(w io.Writer, rep *RecallReport) {
	cv := rep.Read
	usable := 0
	for _, n := range cv.ByDim {
		usable += n
	}
	fmt.Fprintf(w, "Read %s entries under %s: %s vectors (%s).\n", thousands(cv.Entries), cv.Dir, thousands(usable), dimList(cv.ByDim))
	if cv.Undecodable > 0 {
		fmt.Fprintf(w, "Skipped %s undecodable entries (not an embedding; first: %s).\n", thousands(cv.Undecodable), cv.FirstUndecodable)
	}
	if cv.Unusable > 0 {
		fmt.Fprintf(w, "Skipped %s zero or non-finite vectors (no direction to search by).\n", thousands(cv.Unusable))
	}
	if cv.Duplicates > 0 {
		fmt.Fprintf(w, "Skipped %s vectors identical to one read before (one text cached under two keys), so no query finds its own twin.\n", thousands(cv.Duplicates))
	}
	sample := "all of them"
	if len(cv.Vectors) < cv.ByDim[cv.Dim] {
		sample = fmt.Sprintf("a uniform sample of %s (--max-rows)", thousands(len(cv.Vectors)))
	}
	fmt.Fprintf(w, "Measured the %s %d-d vectors, %s, at seed %d: %s held out as queries, %s rows searched.\n",
		thousands(cv.ByDim[cv.Dim]), cv.Dim, sample, rep.Plan.Seed, thousands(len(rep.Queries)), thousands(len(rep.Rows)))
	fmt.Fprintln(w, "Queries are stored vectors (leave-one-out): each is a text the run embedded — a node, fact, record or question alike —"+
		" held out of every index it searches, so it never finds itself; the channels' own indexes and the run's questions are not told apart.")
	if rep.Sparse > 0 {
		fmt.Fprintf(w, "Note: pkg/index keeps %s of the %s sampled vectors as sparse rows (mostly zero, as the offline or fake embedder's are), "+
			"which every setting scores exactly: their recall says nothing about a model's dense vectors.\n",
			thousands(rep.Sparse), thousands(len(cv.Vectors)))
	}
	if len(rep.Plan.KsOf) > 0 {
		var parts []string
		for _, st := range sortedStorages(rep.Plan.KsOf) {
			ks := make([]string, len(rep.Plan.KsOf[st]))
			for i, k := range rep.Plan.KsOf[st] {
				ks[i] = strconv.Itoa(k)
			}
			parts = append(parts, StorageName(st)+" rows at k "+strings.Join(ks, ", "))
		}
		fmt.Fprintf(w, "Binary and IVF are measured over the rows each channel keeps (vector_storage, fact_vector_storage): %s.\n", strings.Join(parts, "; "))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, RecallTable(rep).Markdown())
	fmt.Fprintln(w)
	full := rep.Plan.Sizes[len(rep.Plan.Sizes)-1]
	if full < index.ApproxMin {
		fmt.Fprintf(w, "Under %s rows every setting scores every row: this cache is too small to decide issue 32's bar (recall@k ≥ %.3f at every k).\n",
			thousands(index.ApproxMin), RecallBar)
		return
	}
	if 2*rep.Sparse > len(cv.Vectors) {
		fmt.Fprintf(w, "Most of these vectors are sparse, which every setting scores exactly: they cannot decide issue 32's bar (recall@k ≥ %.3f at every k); a real embedding model's cache can.\n", RecallBar)
		return
	}
	for _, r := range rep.Results {
		if r.Rows == full && r.Setting.Reference {
			var parts []string
			for ki, k := range rep.Plan.Ks {
				if !math.IsNaN(r.KthCosine[ki]) {
					parts = append(parts, fmt.Sprintf("%.3f at k %d", r.KthCosine[ki], k))
				}
			}
			fmt.Fprintf(w, "Exact float32 search's k-th neighbour, mean cosine: %s. Where it nears the cosine of unrelated texts, "+
				"the tail's order is noise that recall@k counts too.\n", strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(w, "Issue 32's bar, recall@k ≥ %.3f at every k against exact float32 search, at %s rows:\n", RecallBar, thousands(full))
	for _, r := range rep.Results {
		if r.Rows != full || r.Setting.Reference {
			continue
		}
		worst, at := math.Inf(1), 0
		for ki, k := range rep.Plan.Ks {
			if !math.IsNaN(r.Recall[ki]) && r.Recall[ki] < worst {
				worst, at = r.Recall[ki], k
			}
		}
		if math.IsInf(worst, 1) {
			continue
		}
		verdict := "met"
		if worst < RecallBar {
			verdict = "not met"
		}
		fmt.Fprintf(w, "- %s: %s (lowest recall@%d %.4f)\n", r.Setting.Label, verdict, at, worst)
	}
}
