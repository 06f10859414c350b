package htmlreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/arbor-eval/arbor/pkg/record"
)

// runMeta is what the page's script knows of a run before loading any data
// file: names of its data files and the values each filter offers.
type runMeta struct {
	ID         string       `json:"id"`
	Benchmark  string       `json:"benchmark"`
	Kind       string       `json:"kind"`
	Questions  string       `json:"questions"` // data file of the question list
	NQuestions int          `json:"nquestions"`
	Systems    []systemMeta `json:"systems"`
	Categories []string     `json:"categories"`
	Outcomes   []string     `json:"outcomes"`
	Budgets    []int        `json:"budgets"`
	// BudgetLabels and CategoryLabels map a value to the name the tables
	// give it, where they differ.
	BudgetLabels   map[int]string    `json:"budget_labels,omitempty"`
	CategoryLabels map[string]string `json:"category_labels,omitempty"`
	Variants       []string          `json:"variants"`
	Bundles        bool              `json:"bundles"`
}

// systemMeta names one system's sample data file.
type systemMeta struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Samples int    `json:"samples"`
	Bundles int    `json:"bundles"`
}

// Outcomes derived when a scorer gives none.
const (
	outcomeError   = "error"
	outcomeCorrect = "correct"
	outcomeWrong   = "wrong"
	outcomePartial = "partial"
)

// outcome is a sample's outcome for the browser's filter: "error" for a
// failed sample, else the primary scorer's own outcome (BranchMemEval's
// confounded, stale, ...), else correct, partial or wrong by score.
func outcome(s record.Sample) string {
	if s.Error != "" {
		return outcomeError
	}
	if r, ok := s.Scores[s.Primary]; ok && r.Outcome != "" {
		return r.Outcome
	}
	switch sc := s.PrimaryScore(); {
	case sc >= 1:
		return outcomeCorrect
	case sc <= 0:
		return outcomeWrong
	default:
		return outcomePartial
	}
}

// span is where one bundle line lies in bundles.jsonl.
type span struct {
	off int64
	n   int
}

// bundleHead is the part of a bundle line read while indexing the file.
type bundleHead struct {
	record.Bundle
	Items json.RawMessage `json:"items"`
	Trace json.RawMessage `json:"trace"`
}

// indexBundles maps each sample key to its latest line in bundles.jsonl and
// collects question texts and gold evidence. A missing file is an empty
// index; a malformed line is skipped (a torn last line from a killed run,
// or an edited file: the report shows what it can).
func indexBundles(path string) (map[string]span, map[string]record.Bundle, error) {
	idx := map[string]span{}
	qs := map[string]record.Bundle{}
	if path == "" {
		return idx, qs, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return idx, qs, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for {
		line, err := r.ReadBytes('\n')
		n := len(line)
		body := bytes.TrimSpace(line)
		var h bundleHead
		if len(body) > 0 && json.Unmarshal(body, &h) == nil {
			k := h.Key()
			idx[k] = span{off: off, n: n}
			qk := h.Episode + "\x1f" + h.Question
			if q, ok := qs[qk]; !ok || q.Text == "" {
				qs[qk] = record.Bundle{Text: h.Text, Evidence: h.Evidence}
			}
		}
		off += int64(n)
		if err == io.EOF {
			return idx, qs, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// jsFile is a data file: a script that hands its JSON to the page.
func jsFile(name string, data []byte) []byte {
	n, _ := json.Marshal(name)
	out := make([]byte, 0, len(data)+len(n)+20)
	out = append(out, "ARBOR.load("...)
	out = append(out, n...)
	out = append(out, ',')
	out = append(out, data...)
	return append(out, ");\n"...)
}

// writeRunData writes run i's question list, per-system sample lists and
// bundle chunks, and returns what the page shows of the run.
func (s *site) writeRunData(i int, r *Run, opt Options) (*runView, error) {
	samples := record.Latest(r.Samples, record.Sample.Key)
	meta := runMeta{ID: r.ID, Questions: fmt.Sprintf("q-%d", i)}
	if r.Manifest != nil {
		meta.Benchmark, _ = r.Manifest["benchmark"].(string)
		meta.Kind, _ = r.Manifest["kind"].(string)
	}
	if meta.Benchmark == "" && len(samples) > 0 {
		meta.Benchmark = samples[0].Benchmark
	}
	spans, qinfo, err := indexBundles(r.Bundles)
	if err != nil {
		return nil, err
	}
	meta.Bundles = len(spans) > 0
	store := &textStore{site: s, prefix: fmt.Sprintf("t-%d-", i), limit: opt.ChunkBytes, placed: map[string][2]int{}}
	if meta.Bundles {
		if store.texts, err = readTexts(r.Texts); err != nil {
			return nil, err
		}
	}

	// Questions in order of first appearance, facets sorted.
	qIndex := map[string]int{}
	var qrows [][]any
	cats, outs, buds, vars := map[string]bool{}, map[string]bool{}, map[int]bool{}, map[string]bool{}
	bySystem := map[string][]record.Sample{}
	var systems []string
	for _, smp := range samples {
		qk := smp.Episode + "\x1f" + smp.Question
		if _, ok := qIndex[qk]; !ok {
			qIndex[qk] = len(qrows)
			info := qinfo[qk]
			qrows = append(qrows, []any{smp.Episode, smp.Question, smp.Category, smp.Gold, smp.Confounder, info.Text, nilIfEmpty(smp.Labels), info.Evidence})
		}
		cats[smp.Category] = true
		outs[outcome(smp)] = true
		buds[smp.Budget] = true
		vars[smp.Variant] = true
		if _, ok := bySystem[smp.System]; !ok {
			systems = append(systems, smp.System)
		}
		bySystem[smp.System] = append(bySystem[smp.System], smp)
	}
	meta.NQuestions = len(qrows)
	meta.Categories = sortedKeys(cats)
	meta.Outcomes = sortedKeys(outs)
	meta.Variants = sortedKeys(vars)
	for b := range buds {
		meta.Budgets = append(meta.Budgets, b)
	}
	sort.Ints(meta.Budgets)
	if r.BudgetLabel != nil {
		for _, b := range meta.Budgets {
			if l := r.BudgetLabel(b); l != fmt.Sprint(b) {
				if meta.BudgetLabels == nil {
					meta.BudgetLabels = map[int]string{}
				}
				meta.BudgetLabels[b] = l
			}
		}
	}
	if r.CategoryLabel != nil {
		for _, c := range meta.Categories {
			if l := r.CategoryLabel(c); l != c {
				if meta.CategoryLabels == nil {
					meta.CategoryLabels = map[string]string{}
				}
				meta.CategoryLabels[c] = l
			}
		}
	}
	outIdx, varIdx := indexOf(meta.Outcomes), indexOf(meta.Variants)
	systems = manifestOrder(r.Manifest, systems)

	js, err := json.Marshal(qrows)
	if err != nil {
		return nil, err
	}
	if err := s.write("data/"+meta.Questions+".js", jsFile(meta.Questions, js)); err != nil {
		return nil, err
	}

	var bf *os.File
	if meta.Bundles {
		if bf, err = os.Open(r.Bundles); err != nil {
			return nil, err
		}
		defer bf.Close()
	}
	for si, sys := range systems {
		ss := bySystem[sys]
		sort.SliceStable(ss, func(a, b int) bool {
			qa, qb := qIndex[ss[a].Episode+"\x1f"+ss[a].Question], qIndex[ss[b].Episode+"\x1f"+ss[b].Question]
			if qa != qb {
				return qa < qb
			}
			if ss[a].Variant != ss[b].Variant {
				return ss[a].Variant < ss[b].Variant
			}
			return ss[a].Budget < ss[b].Budget
		})
		sm := systemMeta{Name: sys, File: fmt.Sprintf("s-%d-%d", i, si), Samples: len(ss)}
		ch := &chunker{site: s, prefix: fmt.Sprintf("b-%d-%d-", i, si), limit: opt.ChunkBytes, texts: store}
		var buf bytes.Buffer
		buf.WriteByte('[')
		for n, smp := range ss {
			chunk, pos := -1, -1
			if sp, ok := spans[smp.Key()]; ok {
				line := make([]byte, sp.n)
				if _, err := bf.ReadAt(line, sp.off); err != nil {
					return nil, fmt.Errorf("read %s at byte %d: %w", r.Bundles, sp.off, err)
				}
				if chunk, pos, err = ch.add(bytes.TrimSpace(line)); err != nil {
					return nil, fmt.Errorf("%s at byte %d: %w", r.Bundles, sp.off, err)
				}
				sm.Bundles++
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			row, err := json.Marshal(sampleRow(smp, qIndex[smp.Episode+"\x1f"+smp.Question], varIdx[smp.Variant], outIdx[outcome(smp)], chunk, pos))
			if err != nil {
				return nil, fmt.Errorf("encode sample %s/%s %s: %w", smp.Episode, smp.Question, smp.System, err)
			}
			buf.Write(row)
		}
		buf.WriteByte(']')
		if err := ch.flush(); err != nil {
			return nil, err
		}
		if err := s.write("data/"+sm.File+".js", jsFile(sm.File, buf.Bytes())); err != nil {
			return nil, err
		}
		s.stats.Samples += len(ss)
		s.stats.Bundles += sm.Bundles
		meta.Systems = append(meta.Systems, sm)
	}
	if err := store.flush(); err != nil {
		return nil, err
	}
	return newRunView(i, r, meta, samples)
}

// sampleRow is one sample as the browser's data file holds it: a compact
// array (see app.js, "sample row") rather than an object, to keep 100,000
// samples small.
func sampleRow(s record.Sample, qi, vi, oi, chunk, pos int) []any {
	scores := map[string][]any{}
	for name, r := range s.Scores {
		h := 0
		if r.Heuristic {
			h = 1
		}
		scores[name] = []any{finiteOr(r.Score), r.Outcome, r.Raw, h}
	}
	var pib any
	if s.QuestionParentInBranch != nil {
		pib = *s.QuestionParentInBranch
	}
	return []any{qi, vi, s.Budget, finiteOr(s.PrimaryScore()), oi, s.EvidenceTokens, finiteOr(s.EvidenceRecall),
		s.Prediction, s.Error, scores, chunk, pos, nilIfEmpty(s.Channels), pib, finiteOr(s.Latency.FullQuery), s.Primary}
}

// textStore places each evidence text once per run in text data files
// (data/t-<run>-<n>.js, a JSON list of strings): the same turn fills the
// bundles of many questions, systems and budgets. Texts go into the open
// file as bundles are first seen, in question order, so one question's
// texts lie in one or two files; a file is written once it reaches limit.
type textStore struct {
	site   *site
	prefix string
	limit  int
	texts  map[string]string // bundle-texts.jsonl, by ref
	placed map[string][2]int // text -> file, index
	n      int               // files written
	open   []string
	size   int
}

// place returns where text lies, adding it to the open file when new.
func (ts *textStore) place(text string) ([2]int, error) {
	if at, ok := ts.placed[text]; ok {
		return at, nil
	}
	if len(ts.open) > 0 && ts.size+len(text) > ts.limit {
		if err := ts.flush(); err != nil {
			return [2]int{}, err
		}
	}
	at := [2]int{ts.n, len(ts.open)}
	ts.placed[text] = at
	ts.open = append(ts.open, text)
	ts.size += len(text)
	return at, nil
}

func (ts *textStore) flush() error {
	if len(ts.open) == 0 {
		return nil
	}
	data, err := json.Marshal(ts.open)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s%d", ts.prefix, ts.n)
	ts.open, ts.size = nil, 0
	ts.n++
	return ts.site.write("data/"+name+".js", jsFile(name, data))
}

// chunkItem is a bundle item as a data file holds it: the text by place
// (file and index in the run's text files), not inline.
type chunkItem struct {
	Channel string   `json:"channel"`
	Block   string   `json:"block,omitempty"`
	Sources []string `json:"sources,omitempty"`
	Tokens  int      `json:"tokens"`
	Text    *[2]int  `json:"t,omitempty"`
	// Missing marks an item whose text reference is not in
	// bundle-texts.jsonl.
	Missing bool `json:"missing,omitempty"`
}

// chunkBundle is what the browser needs of a bundles.jsonl record; the key,
// question text and evidence are in the sample and question lists already.
// Trace stays raw so that fields added to the trace reach the page.
type chunkBundle struct {
	Items  []chunkItem     `json:"items"`
	Trace  json.RawMessage `json:"trace,omitempty"`
	Branch []string        `json:"branch,omitempty"`
}

// bundleLine is a bundles.jsonl record with its trace left undecoded.
type bundleLine struct {
	Items  []record.BundleItem `json:"items"`
	Trace  json.RawMessage     `json:"trace"`
	Branch []string            `json:"branch"`
}

// chunker groups one system's bundles into data files of about limit
// bytes (data/b-<run>-<system>-<n>.js, a JSON list of bundles).
type chunker struct {
	site   *site
	prefix string
	limit  int
	texts  *textStore
	n      int // chunks written
	items  [][]byte
	size   int
}

// add appends one bundle (a bundles.jsonl line) and returns its chunk and
// position.
func (c *chunker) add(line []byte) (int, int, error) {
	if len(c.items) > 0 && c.size+len(line) > c.limit {
		if err := c.flush(); err != nil {
			return 0, 0, err
		}
	}
	var in bundleLine
	if err := json.Unmarshal(line, &in); err != nil {
		return 0, 0, err
	}
	if string(in.Trace) == "null" {
		in.Trace = nil
	}
	out := chunkBundle{Items: make([]chunkItem, len(in.Items)), Trace: in.Trace, Branch: in.Branch}
	for i, it := range in.Items {
		ci := chunkItem{Channel: it.Channel, Block: it.Block, Sources: it.Sources, Tokens: it.Tokens}
		text, ok := it.Text, it.Text != ""
		if it.Ref != "" {
			text, ok = c.texts.texts[it.Ref]
			ci.Missing = !ok
		}
		if ok {
			at, err := c.texts.place(text)
			if err != nil {
				return 0, 0, err
			}
			ci.Text = &at
		}
		out.Items[i] = ci
	}
	b, err := json.Marshal(out)
	if err != nil {
		return 0, 0, err
	}
	c.items = append(c.items, b)
	c.size += len(b)
	return c.n, len(c.items) - 1, nil
}

func (c *chunker) flush() error {
	if len(c.items) == 0 {
		return nil
	}
	// The items are encoded already: join them rather than have
	// json.Marshal validate every byte again.
	data := append(append([]byte{'['}, bytes.Join(c.items, []byte{','})...), ']')
	name := fmt.Sprintf("%s%d", c.prefix, c.n)
	c.items, c.size = nil, 0
	c.n++
	return c.site.write("data/"+name+".js", jsFile(name, data))
}

// readTexts loads bundle-texts.jsonl; a missing file or path is empty, and
// a malformed line is skipped (its items show without text).
func readTexts(path string) (map[string]string, error) {
	out := map[string]string{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		var t record.BundleText
		if body := bytes.TrimSpace(line); len(body) > 0 && json.Unmarshal(body, &t) == nil && t.Ref != "" {
			out[t.Ref] = t.Text
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

func sortedKeys[K comparable](m map[K]bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func indexOf(xs []string) map[string]int {
	m := make(map[string]int, len(xs))
	for i, x := range xs {
		m[x] = i
	}
	return m
}

func nilIfEmpty[M ~map[K]V, K comparable, V any](m M) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// finiteOr keeps NaN and infinities, which JSON cannot hold, out of the data.
func finiteOr(v float64) any {
	if v != v || v > 1e308 || v < -1e308 {
		return nil
	}
	return v
}

// manifestOrder orders systems as the manifest lists them (the order of the
// run's tables), unlisted ones after in their own order.
func manifestOrder(m map[string]any, systems []string) []string {
	listed, _ := m["systems"].([]any)
	rank := map[string]int{}
	for i, x := range listed {
		if s, ok := x.(string); ok {
			rank[s] = i + 1
		}
	}
	out := append([]string(nil), systems...)
	sort.SliceStable(out, func(a, b int) bool {
		ra, rb := rank[out[a]], rank[out[b]]
		if ra == 0 || rb == 0 {
			return ra != 0 && rb == 0
		}
		return ra < rb
	})
	return out
}
