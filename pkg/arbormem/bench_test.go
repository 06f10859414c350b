package arbormem

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// The benchmarks measure ArborMem's own work with every model call
// replaced by an instant stub: vectors derived from a hash of the text,
// a constant reranker, and memory operations answered from a cache filled
// by the rule-based operations during setup.

type stubEmbedder struct {
	dim   int
	cache *sync.Map // text → vector, so repeated texts cost a lookup
}

func (s stubEmbedder) Dim() int { return s.dim }
func (s stubEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if v, ok := s.cache.Load(t); ok {
			out[i] = v.([]float32)
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		v := make([]float32, s.dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		s.cache.Store(t, v)
		out[i] = v
	}
	return out, nil
}

type constReranker struct{}

func (constReranker) Rerank(_ context.Context, _ string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	for i := range out {
		out[i] = 0.5
	}
	return out, nil
}

// cachedOps answers from outputs the rule-based operations computed once.
type cachedOps struct {
	rules.Ops
	mu    sync.Mutex
	meta  map[string]NodeMeta
	facts map[string][]FactDraft
	arts  map[string][]Artifact
	evs   map[string][]Event
	sts   map[string][]State
}

func newCachedOps(ins []dialog.Interaction) *cachedOps {
	c := &cachedOps{meta: map[string]NodeMeta{}, facts: map[string][]FactDraft{}, arts: map[string][]Artifact{}, evs: map[string][]Event{}, sts: map[string][]State{}}
	r := rules.Ops{}
	for _, in := range ins {
		c.meta[in.ID], _ = r.NodeMetadata(ctx0, in)
		c.facts[in.ID], _ = r.Facts(ctx0, in)
		c.arts[in.ID], _ = r.Artifacts(ctx0, in)
		c.evs[in.ID], _ = r.Events(ctx0, in)
		c.sts[in.ID], _ = r.States(ctx0, in)
	}
	return c
}

func (c *cachedOps) NodeMetadata(_ context.Context, in dialog.Interaction) (NodeMeta, error) {
	return c.meta[in.ID], nil
}
func (c *cachedOps) PathSummary(_ context.Context, prev string, cur NodeMeta, in dialog.Interaction) (string, error) {
	if prev != "" {
		return prev, nil
	}
	return "Topic: " + text.ClipWords(cur.Summary, 5) + " | Progress: started", nil
}
func (c *cachedOps) Facts(_ context.Context, in dialog.Interaction) ([]FactDraft, error) {
	return c.facts[in.ID], nil
}
func (c *cachedOps) Artifacts(_ context.Context, in dialog.Interaction) ([]Artifact, error) {
	return c.arts[in.ID], nil
}
func (c *cachedOps) Events(_ context.Context, in dialog.Interaction) ([]Event, error) {
	return c.evs[in.ID], nil
}
func (c *cachedOps) States(_ context.Context, in dialog.Interaction) ([]State, error) {
	return c.sts[in.ID], nil
}

// independentAuditor judges every pair independent without work.
type independentAuditor struct{}

func (independentAuditor) Name() string    { return "stub" }
func (independentAuditor) Heuristic() bool { return true }
func (independentAuditor) Audit(_ context.Context, pairs []AuditPair) ([]bool, error) {
	return make([]bool, len(pairs)), nil
}

// synthetic builds n chat interactions over 40 topics, sessions of about
// 12 turns with pauses between sessions, names, numbers and lists.
func synthetic(n int) []dialog.Interaction {
	r := rand.New(rand.NewPCG(42, 7))
	topics := []string{"garden", "kitchen renovation", "trip to Lisbon", "marathon training", "book club", "job search", "wedding",
		"car purchase", "python course", "birthday party", "apartment move", "tax return", "photography", "guitar lessons", "diet plan",
		"dog training", "home office", "podcast", "chess", "wine tasting", "thesis", "camping", "budget", "insurance", "piano", "yoga",
		"sourdough", "bike repair", "conference talk", "language exchange", "volunteering", "aquarium", "tennis", "cooking class",
		"museum visits", "running shoes", "laptop upgrade", "newsletter", "board games", "interview prep"}
	names := []string{"Marta", "Sam", "Alex", "Priya", "Kofi", "Yara", "Luca", "Greta", "Ines", "Omar", "Hana", "Theo"}
	things := []string{"budget", "deadline", "contact", "venue", "schedule", "price", "plan", "list", "goal", "date"}
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	t := start
	var out []dialog.Interaction
	for i := 0; i < n; i++ {
		if i%12 == 0 {
			t = t.Add(time.Duration(5+r.IntN(40)) * time.Hour)
		} else {
			t = t.Add(time.Duration(1+r.IntN(6)) * time.Minute)
		}
		topic := topics[r.IntN(len(topics))]
		name := names[r.IntN(len(names))]
		thing := things[r.IntN(len(things))]
		user := fmt.Sprintf("For the %s with %s, the %s is now %d. I bought %d items at Store%d on May %d. What should I do next about the %s?",
			topic, name, thing, 100+r.IntN(9000), 1+r.IntN(5), r.IntN(50), 1+r.IntN(28), thing)
		asst := fmt.Sprintf("Noted: the %s for the %s is set. Here is a plan:\n1. Check the %s with %s\n2. Review the %s notes\n3. Book a follow-up on June %d\nKeep a log of every change so the %s stays on track.",
			thing, topic, thing, name, topic, 1+r.IntN(28), topic)
		id := fmt.Sprintf("n%05d", i)
		out = append(out, dialog.Interaction{ID: id, Session: fmt.Sprintf("s%d", i/12), Time: t,
			Turns: []dialog.Turn{{ID: id + "-u", Role: dialog.RoleUser, Content: user}, {ID: id + "-a", Role: dialog.RoleAssistant, Content: asst}}})
	}
	return out
}

var (
	benchMu    sync.Mutex
	benchCache = map[int]*benchSetup{}
)

type benchSetup struct {
	sys *System
	ins []dialog.Interaction
	ops *cachedOps
}

func benchSystem(b *testing.B, n int) *benchSetup {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchCache[n]; ok {
		return s
	}
	ins := synthetic(n + 200)
	ops := newCachedOps(ins)
	d := Deps{Embed: stubEmbedder{dim: 1024, cache: &sync.Map{}}, Rerank: constReranker{}, Tokens: tokens.Default(), Extractor: ops, Auditor: independentAuditor{}, Routing: RoutingHeuristic}
	s, err := New(config.DefaultArborMem(), d)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range ins[:n] {
		if err := s.Commit(ctx0, in); err != nil {
			b.Fatal(err)
		}
	}
	bs := &benchSetup{sys: s, ins: ins, ops: ops}
	benchCache[n] = bs
	return bs
}

func reportP50(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkRecall measures query preparation (localization by the scored
// path, assembly, packing) at the paper's 32K budget, model calls stubbed.
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{250, 12000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			bs := benchSystem(b, n)
			qs := []string{"What was the budget for the trip to Lisbon with Marta?", "How many items did I buy at Store12?",
				"Back to the kitchen renovation: what is the deadline now?", "What was the second step of your plan for the garden?",
				"Who is the contact for the wedding?"}
			last := bs.ins[n-1].Time.Add(48 * time.Hour) // a question after a pause: the scored path
			var ds []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := memory.Query{ID: "q", Text: fmt.Sprintf("%s (%d)", qs[i%len(qs)], i), Time: last, Budget: 30968}
				t0 := time.Now()
				if _, err := bs.sys.Recall(ctx0, q); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
			}
			reportP50(b, ds)
		})
	}
}

// BenchmarkCommit measures one commit's bookkeeping (localization without
// model calls, metadata, indexes, facts with the collision check, records)
// on top of n committed interactions.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{250, 12000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			bs := benchSystem(b, n)
			extra := bs.ins[n:]
			var ds []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				src := extra[i%len(extra)]
				in := src
				in.ID = fmt.Sprintf("%s-b%d", src.ID, benchSeq.Add(1))
				o := bs.ops
				o.mu.Lock()
				o.meta[in.ID], o.facts[in.ID], o.arts[in.ID], o.evs[in.ID], o.sts[in.ID] = o.meta[src.ID], o.facts[src.ID], o.arts[src.ID], o.evs[src.ID], o.sts[src.ID]
				o.mu.Unlock()
				b.StartTimer()
				t0 := time.Now()
				if err := bs.sys.Commit(ctx0, in); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
			}
			reportP50(b, ds)
		})
	}
}

var benchSeq atomic.Int64

// modelOps is cachedOps reporting itself model-backed, so that a system
// built on it takes the model path (no offline profile; vector_storage
// auto stores int8 rows).
type modelOps struct{ *cachedOps }

func (modelOps) Heuristic() bool { return false }

// wordEmbedder makes dense 1,024-d vectors with the structure a model's
// have: a text's vector is the sum of one fixed random vector per word
// (longer words only, so that "the" does not make every text alike), so
// texts that share words are near each other and the vectors cluster by
// topic, as the approximate first stage needs to be measured on.
type wordEmbedder struct {
	dim   int
	words *sync.Map // word → vector
}

func (e wordEmbedder) Dim() int { return e.dim }
func (e wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) < 4 {
				continue
			}
			wv, ok := e.words.Load(w)
			if !ok {
				h := fnv.New64a()
				h.Write([]byte(w))
				r := rand.New(rand.NewPCG(h.Sum64(), 2))
				x := make([]float32, e.dim)
				for j := range x {
					x[j] = float32(r.NormFloat64())
				}
				wv, _ = e.words.LoadOrStore(w, x)
			}
			for j, f := range wv.([]float32) {
				v[j] += f
			}
		}
		v[i%e.dim] += 1e-3 // no zero vector
		out[i] = v
	}
	return out, nil
}

// BenchmarkRecallScale measures one recall on the model path (model-backed
// operations answered from a cache, dense 1,024-d vectors from
// wordEmbedder, the paper's 32K budget) at 250, 2,000 and 12,000 committed
// interactions, for each arbormem.vector_search setting: the process CPU
// per recall (cpu-ms; every model call is an instant stub), its multiple
// of the 250-interaction figure (x-of-250), the live heap after the setup
// (heap-MB, with the inputs shared by every setting), and the rows of each dense
// channel (nodes, facts, records), each searched once per recall:
//
//	go test ./pkg/arbormem -run '^$' -bench RecallScale -benchtime 40x
//	go test ./pkg/arbormem -run '^$' -bench 'RecallScale/exact-int8' -benchtime 40x -cpuprofile cpu.out
func BenchmarkRecallScale(b *testing.B) {
	embed := wordEmbedder{dim: 1024, words: &sync.Map{}}
	ins := synthetic(12000)
	ops := newCachedOps(ins)
	qs := []string{"What was the budget for the trip to Lisbon with Marta?", "How many items did I buy at Store12?",
		"Back to the kitchen renovation: what is the deadline now?", "What was the second step of your plan for the garden?",
		"Who is the contact for the wedding?", "When is the follow-up for the marathon training with Kofi?"}
	for _, v := range []struct{ name, storage, search string }{
		{"exact-int8", "int8", "exact"}, {"exact-auto", "auto", "exact"}, {"exact-float32", "float32", "exact"}, {"binary-int8", "int8", "binary"}, {"binary-int4", "int4", "binary"},
	} {
		var first float64
		for _, n := range []int{250, 2000, 12000} {
			b.Run(fmt.Sprintf("%s/%d", v.name, n), func(b *testing.B) {
				cfg := config.DefaultArborMem()
				cfg.VectorStorage, cfg.VectorSearch = v.storage, v.search
				s, err := New(cfg, Deps{Embed: embed, Rerank: constReranker{}, Tokens: tokens.Default(), Extractor: modelOps{ops}, Auditor: independentAuditor{}})
				if err != nil {
					b.Fatal(err)
				}
				for _, in := range ins[:n] {
					if err := s.Commit(ctx0, in); err != nil {
						b.Fatal(err)
					}
				}
				last := ins[n-1].Time.Add(48 * time.Hour)
				// The setup's garbage is collected first: the process CPU
				// counted is then the recalls' and their own collection's.
				// The live heap then (heap-MB) is the system's and the
				// shared inputs' (the same for every setting).
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ResetTimer()
				c0 := benchinput.ProcessCPU()
				for i := 0; b.Loop(); i++ {
					q := memory.Query{ID: "q", Text: fmt.Sprintf("%s (%d)", qs[i%len(qs)], i), Time: last, Budget: 30968}
					if _, err := s.Recall(ctx0, q); err != nil {
						b.Fatal(err)
					}
				}
				cpu := float64(benchinput.ProcessCPU()-c0) / float64(b.N) / 1e6
				if n == 250 {
					first = cpu
				}
				b.ReportMetric(cpu, "cpu-ms")
				b.ReportMetric(cpu/first, "x-of-250")
				b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
				b.ReportMetric(float64(s.nodeVec.Len()), "nodes")
				b.ReportMetric(float64(s.factVec.Len()), "facts")
				b.ReportMetric(float64(s.recVec.Len()), "records")
			})
		}
	}
}

// BenchmarkVectorSettingsAgree measures what the approximate and compact
// vector settings change on the model path, against the paper's exact
// search over float32 rows: the same episode (ARBOR_AGREE_TURNS
// interactions, default 2,000; dense vectors from wordEmbedder,
// model-backed operations answered from a cache) is committed under each
// setting and asked the same 60 questions. It reports the share of
// interactions placed under the same parent as with exact float32 search
// (placement), the share of questions localized to the same node
// (question-parent) and whose bundles are the same text (bundle), and the
// mean Jaccard overlap of the bundles' evidence lines (lines):
//
//	go test ./pkg/arbormem -run '^$' -bench VectorSettingsAgree -benchtime 1x
func BenchmarkVectorSettingsAgree(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("ARBOR_AGREE_TURNS")); err == nil && v > 0 {
		n = v
	}
	embed := wordEmbedder{dim: 1024, words: &sync.Map{}}
	ins := synthetic(n)
	ops := newCachedOps(ins)
	r := rand.New(rand.NewPCG(3, 5))
	var qs []memory.Query
	last := ins[n-1].Time.Add(48 * time.Hour)
	for range 60 {
		// A question about an earlier interaction: its first clause, asked.
		src := ins[r.IntN(n)].Turns[0].Content
		if i := strings.Index(src, ","); i > 0 {
			src = src[:i]
		}
		qs = append(qs, memory.Query{ID: "q", Text: "What did we say about " + strings.TrimPrefix(src, "For ") + "?", Time: last, Budget: 30968})
	}
	type outcome struct {
		parents []int
		trace   []string
		bundles []string
		lines   []map[string]bool
	}
	run := func(storage, facts, search string) outcome {
		cfg := config.DefaultArborMem()
		cfg.VectorStorage, cfg.FactVectorStorage, cfg.VectorSearch = storage, facts, search
		s, err := New(cfg, Deps{Embed: embed, Rerank: constReranker{}, Tokens: tokens.Default(), Extractor: modelOps{ops}, Auditor: independentAuditor{}})
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range ins {
			if err := s.Commit(ctx0, in); err != nil {
				b.Fatal(err)
			}
		}
		var o outcome
		for _, nd := range s.forest.Nodes {
			o.parents = append(o.parents, nd.Parent)
		}
		for _, q := range qs {
			bd, err := s.Recall(ctx0, q)
			if err != nil {
				b.Fatal(err)
			}
			var all strings.Builder
			lines := map[string]bool{}
			for _, it := range bd.Items {
				all.WriteString(it.Text)
				for _, l := range strings.Split(it.Text, "\n") {
					lines[l] = true
				}
			}
			o.trace = append(o.trace, bd.Trace.Parent)
			o.bundles = append(o.bundles, all.String())
			o.lines = append(o.lines, lines)
		}
		return o
	}
	for b.Loop() {
		ref := run("float32", "auto", "exact")
		for _, v := range []struct{ name, storage, facts, search string }{
			{"exact-auto", "auto", "auto", "exact"},
			{"exact-int8", "int8", "auto", "exact"}, {"exact-int4", "int4", "auto", "exact"}, {"binary-float32", "float32", "auto", "binary"},
			{"binary-int8", "int8", "auto", "binary"}, {"binary-int4", "int4", "auto", "binary"},
		} {
			o := run(v.storage, v.facts, v.search)
			same := 0
			for i := range ref.parents {
				if ref.parents[i] == o.parents[i] {
					same++
				}
			}
			var qp, bundle int
			var jac float64
			for i := range qs {
				if ref.trace[i] == o.trace[i] {
					qp++
				}
				if ref.bundles[i] == o.bundles[i] {
					bundle++
				}
				inter := 0
				for l := range o.lines[i] {
					if ref.lines[i][l] {
						inter++
					}
				}
				jac += float64(inter) / float64(len(ref.lines[i])+len(o.lines[i])-inter)
			}
			b.Logf("%s against exact float32 at %d interactions: placement %.4f, question-parent %.3f, bundle %.3f, lines %.4f",
				v.name, n, float64(same)/float64(len(ref.parents)), float64(qp)/float64(len(qs)), float64(bundle)/float64(len(qs)), jac/float64(len(qs)))
		}
	}
}
