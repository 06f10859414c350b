package htmlreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
)

// locomoShape is the shape of an offline LoCoMo run of the five development
// conversations (arbor eval locomo on locomo10-conv26-43.json, every
// system at 32K): per conversation about 150 questions and 300 turns in 20
// sessions; Full's bundle the ~300 turns, Recent's the last 32, BM25's 50
// turns, Summary's ~27 summaries citing ~11 turns each, and ArborMem's ~48
// items over four channels with a trace of ~42 candidates, each with 7
// full-precision numbers; a forest of every turn per conversation. The
// fixture is generated (random words, seeded), not the data copied: it has
// the run's counts and the entropy of its numbers and texts, which is what
// the report's size depends on.
type locomoShape struct {
	episodes, questions, turns int
}

// realShape is the development half: 5 conversations, 762 questions, so
// 3,810 samples.
var realShape = locomoShape{episodes: 5, questions: 152, turns: 300}

// words draws n words of a fixed vocabulary of made-up words: text whose
// compression resembles prose more than a repeated sentence does.
type words struct {
	r     *rand.Rand
	vocab []string
}

func newWords(seed uint64) *words {
	w := &words{r: rand.New(rand.NewPCG(seed, 7))}
	const letters = "etaoinshrdlcumwfgypbvk"
	for len(w.vocab) < 3000 {
		n := 2 + w.r.IntN(8)
		var b strings.Builder
		for range n {
			b.WriteByte(letters[int(float64(len(letters))*math.Pow(w.r.Float64(), 1.6))])
		}
		w.vocab = append(w.vocab, b.String())
	}
	return w
}

func (w *words) say(n int) string {
	out := make([]string, n)
	for i := range out {
		// Zipf-like: a few words often, most rarely.
		out[i] = w.vocab[int(float64(len(w.vocab))*math.Pow(w.r.Float64(), 3))]
	}
	return strings.Join(out, " ")
}

// locomoRun writes a run of shape sh into dir (bundles, texts, forests)
// and returns it with its samples.
func locomoRun(t testing.TB, dir string, sh locomoShape) Run {
	t.Helper()
	w := newWords(42)
	r := w.r
	create := func(name string) (*os.File, *bufio.Writer, *json.Encoder) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		return f, bw, json.NewEncoder(bw)
	}
	bf, bw, benc := create("bundles.jsonl")
	tf, tw, tenc := create("bundle-texts.jsonl")
	ff, fw, fenc := create("forests.jsonl")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	systems := []string{"full", "recent", "bm25", "summary", "arbormem"}
	var samples []record.Sample
	for e := range sh.episodes {
		ep := fmt.Sprintf("conv-%d", 26+e)
		// Turns D<session>:<n>, 15 a session; each text stored once.
		ids := make([]string, sh.turns)
		refs := make([]string, sh.turns)
		tokens := make([]int, sh.turns)
		view := forestview.View{Scope: ep, Heuristic: true}
		t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
		for k := range ids {
			ids[k] = fmt.Sprintf("D%d:%d", k/15+1, 2*(k%15)+1)
			txt := fmt.Sprintf("[%s] Speaker %d: %s", ids[k], k%2, w.say(60+r.IntN(120)))
			refs[k], tokens[k] = record.TextRef(txt), len(txt)/4
			must(tenc.Encode(record.BundleText{Ref: refs[k], Text: txt}))
			n := forestview.Node{ID: ids[k], Root: ids[k], Time: t0.Add(time.Duration(k) * time.Hour),
				User: w.say(12), Summary: w.say(15 + r.IntN(20)), Topic: w.say(4), PathSummary: w.say(40), Entities: []string{"Mel", "Caroline"}}
			if k%15 != 0 && r.IntN(4) > 0 { // most turns continue their session's branch
				n.Parent = ids[k-1]
				n.Root = view.Nodes[k-1].Root
				n.Depth = view.Nodes[k-1].Depth + 1
			} else {
				view.Roots = append(view.Roots, ids[k])
			}
			view.Nodes = append(view.Nodes, n)
		}
		view.Active = ids[len(ids)-1]
		vb, err := json.Marshal(view)
		must(err)
		must(fenc.Encode(record.Forest{Benchmark: "locomo", Episode: ep, System: "arbormem", Variants: []string{""}, View: vb}))
		// Summaries: one per 11 turns.
		var sums []record.BundleItem
		for k := 0; k < sh.turns; k += 11 {
			txt := "Summary: " + w.say(80+r.IntN(60))
			ref := record.TextRef(txt)
			must(tenc.Encode(record.BundleText{Ref: ref, Text: txt}))
			sums = append(sums, record.BundleItem{Channel: "summary", Sources: ids[k:min(k+11, sh.turns)], Tokens: 150 + r.IntN(100), Ref: ref})
		}
		// Records and facts ArborMem extracted: one per 5 turns.
		var recs []record.BundleItem
		for k := 0; k < sh.turns; k += 5 {
			txt := "Event: " + w.say(20+r.IntN(30))
			ref := record.TextRef(txt)
			must(tenc.Encode(record.BundleText{Ref: ref, Text: txt}))
			ch, block := "record", []string{"EventEvidence", "StateEvidence", "UpdateEvidence", "TopicSlotEvidence"}[r.IntN(4)]
			if k%25 == 0 {
				ch, block = "fact", "DATA CONTEXT"
			}
			recs = append(recs, record.BundleItem{Channel: ch, Block: block, Sources: ids[k : k+1+r.IntN(2)], Tokens: 40 + r.IntN(40), Ref: ref})
		}
		turn := func(k int, ch, block string) record.BundleItem {
			return record.BundleItem{Channel: ch, Block: block, Sources: []string{ids[k]}, Tokens: tokens[k], Ref: refs[k]}
		}
		for q := range sh.questions {
			qid := fmt.Sprintf("%s:%d", ep, q)
			cat := fmt.Sprint(1 + r.IntN(4))
			gold := w.say(1 + r.IntN(4))
			evidence := []string{ids[r.IntN(sh.turns)]}
			if r.IntN(3) == 0 {
				evidence = append(evidence, ids[r.IntN(sh.turns)])
			}
			text := w.say(8+r.IntN(8)) + "?"
			for _, sys := range systems {
				f1 := 0.0
				if r.IntN(4) == 0 {
					f1 = r.Float64()
				}
				s := record.Sample{Benchmark: "locomo", Episode: ep, Question: qid, System: sys, Budget: 30968, Category: cat,
					Labels:     map[string]string{"category_name": []string{"multi-hop", "temporal", "open-domain", "single-hop"}[cat[0]-'1'], "qa_index": fmt.Sprint(q)},
					Prediction: w.say(5 + r.IntN(15)), Gold: gold, Primary: "locomo-f1",
					Scores:         map[string]record.ScoreRecord{"locomo-f1": {Score: f1}},
					EvidenceTokens: 2000 + r.IntN(28000), EvidenceRecall: float64(r.IntN(2)),
					Latency: record.Latency{IngestPerInteraction: r.Float64() / 1e4, Ingested: r.IntN(300), QueryPrep: r.Float64() / 1e5, TTFT: r.Float64() / 500, Answer: r.Float64() / 500, FullQuery: r.Float64() / 500}}
				b := record.Bundle{Benchmark: "locomo", Episode: ep, Question: qid, System: sys, Budget: 30968, Text: text, Evidence: evidence}
				switch sys {
				case "full":
					for k := range sh.turns - r.IntN(10) {
						b.Items = append(b.Items, turn(k, "local", ""))
					}
				case "recent":
					for k := sh.turns - 32; k < sh.turns; k++ {
						b.Items = append(b.Items, turn(k, "local", ""))
					}
				case "bm25":
					for range 50 {
						b.Items = append(b.Items, turn(r.IntN(sh.turns), "turn", ""))
					}
				case "summary":
					b.Items = append(b.Items, sums...)
				case "arbormem":
					// The branch from its root, the retrieved turns, then records.
					end := r.IntN(sh.turns)
					start := max(0, end-5-r.IntN(20))
					for k := start; k <= end; k++ {
						b.Items = append(b.Items, turn(k, "local", "ConversationHistory"))
						b.Branch = append(b.Branch, ids[k])
					}
					for range 15 + r.IntN(15) {
						b.Items = append(b.Items, turn(r.IntN(sh.turns), "turn", "SupplementalEvidence"))
					}
					for range 8 + r.IntN(10) {
						b.Items = append(b.Items, recs[r.IntN(len(recs))])
					}
					tr := &memory.Trace{Localized: true, Path: "scored", Parent: ids[end],
						Rules:    []string{"highest score above τ: its node (eq. 2)", fmt.Sprintf("offline routing: a trajectory resumes at its latest node (%s, not %s)", ids[end], ids[r.IntN(sh.turns)])},
						Channels: map[memory.Channel]int{"fact": r.IntN(300), "local": r.IntN(3000), "record": r.IntN(2000), "turn": r.IntN(8000)}}
					for range 20 + r.IntN(45) {
						p := r.Float64()
						key := float64(r.IntN(5)) / 2
						rec := math.Exp(-30 * r.Float64())
						topic := []float64{8, 16.0 / 3, -6, 0}[r.IntN(4)]
						tr.Candidates = append(tr.Candidates, memory.Candidate{Node: ids[r.IntN(sh.turns)], Raw: p, Prob: p, CE: 10 * p, Key: key, Rec: rec, Topic: topic, Score: 10*p + key + rec + topic})
					}
					b.Trace = tr
				}
				samples = append(samples, s)
				must(benc.Encode(b))
			}
		}
	}
	for _, x := range []struct {
		f *os.File
		w *bufio.Writer
	}{{bf, bw}, {tf, tw}, {ff, fw}} {
		must(x.w.Flush())
		must(x.f.Close())
	}
	return Run{ID: "locomo-shaped", Dir: dir, Samples: samples,
		Manifest: map[string]any{"benchmark": "locomo", "kind": "eval", "systems": []any{"full", "recent", "bm25", "summary", "arbormem"}},
		Bundles:  filepath.Join(dir, "bundles.jsonl"), Texts: filepath.Join(dir, "bundle-texts.jsonl"), Forests: filepath.Join(dir, "forests.jsonl")}
}

// TestLoCoMoShapedSize holds a report of one LoCoMo-shaped conversation
// (realShape's per-conversation counts: 760 samples) to issue 32's target:
// at most 1 KB a sample, counting every byte of the site but the evidence
// texts (stored once a run: index.html with its tables and first page,
// every page of rows, the search file, the bundles with their traces, and
// the forests).
func TestLoCoMoShapedSize(t *testing.T) {
	sh := realShape
	sh.episodes = 1
	run := locomoRun(t, t.TempDir(), sh)
	out := t.TempDir()
	if _, err := Write(out, []Run{run}, Options{}); err != nil {
		t.Fatal(err)
	}
	s := measureSite(t, out)
	n := int64(len(run.Samples))
	if per := (s.total() - s.texts) / n; per > 1024 {
		t.Errorf("%d B a sample without the texts (first view %d, rows %d, bundles %d, forests %d bytes); issue 32 asks at most 1,024",
			per, s.first, s.rows, s.bundles, s.forests)
	}
}
