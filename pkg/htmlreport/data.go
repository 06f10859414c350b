package htmlreport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/record"
)

// runMeta is what the page's script knows of a run before loading any data
// file: names of its data files and the values each filter offers.
type runMeta struct {
	ID         string       `json:"id"`
	Benchmark  string       `json:"benchmark"`
	Kind       string       `json:"kind"`
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
	// Rows counts the question rows (question, variant, budget); the index
	// file (data/x-<run>.js) holds each row's facets, page file n
	// (data/p-<run>-<n>.js) rows [n*PageRows, (n+1)*PageRows), and the
	// search file (data/w-<run>.js) each question's ids and texts.
	Rows     int `json:"rows"`
	PageRows int `json:"page_rows"`
	Pages    int `json:"pages"`
	// Forests says whether the run recorded forests.jsonl (runs made before
	// it did not, and run.bundles: off writes none).
	Forests bool `json:"forests"`
}

// systemMeta is one system of a run.
type systemMeta struct {
	Name    string `json:"name"`
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

// jsFile is a data script that hands its JSON to the page as it is.
func jsFile(name string, data []byte) []byte {
	n, _ := json.Marshal(name)
	out := make([]byte, 0, len(data)+len(n)+20)
	out = append(out, "ARBOR.load("...)
	out = append(out, n...)
	out = append(out, ',')
	out = append(out, data...)
	return append(out, ");\n"...)
}

// zipFile is a data file (under data/, or inline in index.html): a script
// that hands the page its JSON gzipped and in base64 (ARBOR.z(name, "…"),
// which the page decodes with the browser's DecompressionStream), or as
// jsFile does when that is no larger (a tiny file). A script, not a
// fetched file, because browsers refuse fetch() on file:// pages; base64
// because a script is text. The JSON of a run's pages, bundles, traces and
// forests is repetitive (the same keys, names and numbers' leading digits,
// line after line): gzip takes it to a quarter or a third, base64's third
// more included, which is what keeps a real ArborMem run's report under
// 1 KB a sample (README, "The HTML report"). The gzip stream carries no
// name or time, so the same data gives the same file.
func zipFile(name string, data []byte) ([]byte, error) {
	var z bytes.Buffer
	w, err := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("compress data/%s.js: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compress data/%s.js: %w", name, err)
	}
	n, _ := json.Marshal(name)
	size := base64.StdEncoding.EncodedLen(z.Len())
	if size >= len(data) {
		return jsFile(name, data), nil
	}
	out := make([]byte, 0, size+len(n)+20)
	out = append(out, "ARBOR.z("...)
	out = append(out, n...)
	out = append(out, ",\""...)
	out = base64.StdEncoding.AppendEncode(out, z.Bytes())
	return append(out, "\");\n"...), nil
}

// writeData writes data file data/<name>.js holding the JSON data.
func (s *site) writeData(name string, data []byte) error {
	js, err := zipFile(name, data)
	if err != nil {
		return err
	}
	return s.write("data/"+name+".js", js)
}

// Facet codes in the index string: one character per value, 'a' for none
// (a system without a sample in the row; a row continuing its question),
// 'b' onwards for the value's position in the run's list. Letters and the
// characters after them need no escaping in JSON.
const (
	codeNone  = 'a'
	codeFirst = 'b'
)

func code(v int) rune { return codeFirst + rune(v) }

// row is one question row of the browser: a question at one variant and
// budget, with each system's sample (nil where it has none).
type row struct {
	qi, vi, budget int
	per            []*record.Sample
}

// writeRunData writes run i's data files (the row index, the search file,
// the pages of rows with their samples, and the bundle, text and forest
// chunks the pages refer to) and returns what the page shows of the run.
// The browser's first view loads the index and one page, whatever the
// run's size; everything else is loaded when a question or a search asks
// for it.
func (s *site) writeRunData(i int, r *Run, opt Options) (*runView, error) {
	samples := record.Latest(r.Samples, record.Sample.Key)
	meta := runMeta{ID: r.ID, PageRows: opt.PageRows}
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
	forests, recorded, err := readForests(r.Forests)
	if err != nil {
		return nil, err
	}
	meta.Forests = recorded

	// Questions in order of first appearance, facets sorted.
	qIndex := map[string]int{}
	var qrows [][]any
	cats, outs, buds, vars := map[string]bool{}, map[string]bool{}, map[int]bool{}, map[string]bool{}
	seenSys := map[string]bool{}
	var systems []string
	// qOf is each sample's question row.
	qOf := make([]int, len(samples))
	for k, smp := range samples {
		qk := smp.Episode + "\x1f" + smp.Question
		if _, ok := qIndex[qk]; !ok {
			qIndex[qk] = len(qrows)
			info := qinfo[qk]
			qrows = append(qrows, []any{smp.Episode, smp.Question, smp.Category, smp.Gold, smp.Confounder, info.Text, nilIfEmpty(smp.Labels), info.Evidence})
		}
		qOf[k] = qIndex[qk]
		cats[smp.Category] = true
		outs[outcome(smp)] = true
		buds[smp.Budget] = true
		vars[smp.Variant] = true
		if !seenSys[smp.System] {
			seenSys[smp.System] = true
			systems = append(systems, smp.System)
		}
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
	outIdx, varIdx, catIdx := indexOf(meta.Outcomes), indexOf(meta.Variants), indexOf(meta.Categories)
	budIdx := map[int]int{}
	for k, b := range meta.Budgets {
		budIdx[b] = k
	}
	systems = manifestOrder(r.Manifest, systems)
	sysIdx := indexOf(systems)

	// Rows in question, variant, budget order.
	rowAt := map[[3]int]int{}
	var rows []*row
	for k := range samples {
		smp := &samples[k]
		key := [3]int{qOf[k], varIdx[smp.Variant], smp.Budget}
		at, ok := rowAt[key]
		if !ok {
			at = len(rows)
			rowAt[key] = at
			rows = append(rows, &row{qi: key[0], vi: key[1], budget: smp.Budget, per: make([]*record.Sample, len(systems))})
		}
		rows[at].per[sysIdx[smp.System]] = smp
	}
	sort.Slice(rows, func(a, b int) bool {
		ra, rb := rows[a], rows[b]
		if ra.qi != rb.qi {
			return ra.qi < rb.qi
		}
		if ra.vi != rb.vi {
			return ra.vi < rb.vi
		}
		return ra.budget < rb.budget
	})
	meta.Rows = len(rows)
	meta.Pages = (len(rows) + opt.PageRows - 1) / opt.PageRows

	// The index: per row, whether it starts a question, then its category,
	// variant and budget, then each system's outcome.
	var idx strings.Builder
	idx.Grow(len(rows) * (4 + len(systems)))
	for n, rw := range rows {
		if n == 0 || rows[n-1].qi != rw.qi {
			idx.WriteRune(codeFirst)
		} else {
			idx.WriteRune(codeNone)
		}
		cat, _ := qrows[rw.qi][2].(string)
		idx.WriteRune(code(catIdx[cat]))
		idx.WriteRune(code(rw.vi))
		idx.WriteRune(code(budIdx[rw.budget]))
		for _, smp := range rw.per {
			if smp == nil {
				idx.WriteRune(codeNone)
			} else {
				idx.WriteRune(code(outIdx[outcome(*smp)]))
			}
		}
	}
	if err := s.inlineJS(fmt.Sprintf("x-%d", i), idx.String()); err != nil {
		return nil, err
	}
	// The search file: what the list's search box matches, per question.
	words := make([][]any, len(qrows))
	for k, q := range qrows {
		words[k] = []any{q[0], q[1], q[3], q[5]}
	}
	if err := s.writeJS(fmt.Sprintf("w-%d", i), words); err != nil {
		return nil, err
	}

	var bf *os.File
	if meta.Bundles {
		if bf, err = os.Open(r.Bundles); err != nil {
			return nil, err
		}
		defer bf.Close()
	}
	chunkers := make([]*chunker, len(systems))
	for si := range systems {
		chunkers[si] = &chunker{packer: packer{site: s, prefix: fmt.Sprintf("b-%d-%d-", i, si), limit: opt.ChunkBytes}, texts: store}
		meta.Systems = append(meta.Systems, systemMeta{Name: systems[si]})
	}
	forestPack := &packer{site: s, prefix: fmt.Sprintf("g-%d-", i), limit: opt.ChunkBytes}
	forestAt := map[string][2]int{}
	for pg := 0; pg < meta.Pages; pg++ {
		page := pageData{Systems: make([][]any, len(systems)), Forests: map[string][2]int{}}
		part := rows[pg*opt.PageRows : min(len(rows), (pg+1)*opt.PageRows)]
		for si := range systems {
			page.Systems[si] = make([]any, len(part))
		}
		for n, rw := range part {
			if n == 0 || part[n-1].qi != rw.qi {
				page.Questions = append(page.Questions, append([]any{rw.qi}, qrows[rw.qi]...))
			}
			for si, smp := range rw.per {
				if smp == nil {
					continue
				}
				sm := &meta.Systems[si]
				sm.Samples++
				chunk, pos := -1, -1
				if sp, ok := spans[smp.Key()]; ok {
					line := make([]byte, sp.n)
					if _, err := bf.ReadAt(line, sp.off); err != nil {
						return nil, fmt.Errorf("read %s at byte %d: %w", r.Bundles, sp.off, err)
					}
					if chunk, pos, err = chunkers[si].add(bytes.TrimSpace(line)); err != nil {
						return nil, fmt.Errorf("%s at byte %d: %w", r.Bundles, sp.off, err)
					}
					sm.Bundles++
				}
				page.Systems[si][n] = sampleRow(*smp, rw.qi, rw.vi, outIdx[outcome(*smp)], chunk, pos)
				fk := forestKey(smp.System, smp.Variant, smp.Episode)
				if at, ok := forestAt[fk]; ok {
					page.Forests[fk] = at
				} else if view, ok := forests[fk]; ok {
					c, p, err := forestPack.add(view)
					if err != nil {
						return nil, err
					}
					forestAt[fk] = [2]int{c, p}
					page.Forests[fk] = forestAt[fk]
				}
			}
		}
		// The first page goes into index.html with the index: the list's
		// first view then loads nothing more.
		write := s.writeJS
		if pg == 0 {
			write = s.inlineJS
		}
		if err := write(fmt.Sprintf("p-%d-%d", i, pg), page); err != nil {
			return nil, err
		}
	}
	for si, ch := range chunkers {
		if err := ch.flush(); err != nil {
			return nil, err
		}
		s.stats.Samples += meta.Systems[si].Samples
		s.stats.Bundles += meta.Systems[si].Bundles
	}
	if err := forestPack.flush(); err != nil {
		return nil, err
	}
	if err := store.flush(); err != nil {
		return nil, err
	}
	return newRunView(i, r, meta, samples)
}

// pageData is one page file: the questions its rows belong to (each
// prefixed with its index), each system's sample rows aligned with the
// page's rows (null where a system has none), and where the forests its
// samples were answered from lie (forestKey to forest file and position).
type pageData struct {
	Questions [][]any           `json:"q"`
	Systems   [][]any           `json:"s"`
	Forests   map[string][2]int `json:"f"`
}

// forestKey names the forest a sample of system at variant in episode was
// answered from; the page's script builds the same key.
func forestKey(system, variant, episode string) string {
	return system + "\x1f" + variant + "\x1f" + episode
}

// inlineJS puts v into index.html as the data of data file <name>, in a
// script the page runs before it starts, gzipped as the files under data/
// are (zipFile: base64 or JSON, which json.Marshal escapes "<" in, so the
// data cannot end that script early).
func (s *site) inlineJS(name string, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	z, err := zipFile(name, js)
	if err != nil {
		return err
	}
	s.inline = append(s.inline, z)
	return nil
}

// writeJS writes v as data file data/<name>.js.
func (s *site) writeJS(name string, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode data/%s.js: %w", name, err)
	}
	return s.writeData(name, js)
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
	return ts.site.writeData(name, data)
}

// Text places of a bundle item in a chunk: a text file and index, or one
// of these in the file's place.
const (
	textNone    = -1 // not recorded (run.bundles: trace)
	textMissing = -2 // its reference is not in bundle-texts.jsonl
)

// chunkBundle is what the browser needs of a bundles.jsonl record; the key,
// question text and evidence are in the page files already. Each item is
// [channel, block, tokens, text file, text index, sources...], where
// channel, block and sources are positions in the chunk's name list (block
// -1: none) and the text file may be textNone or textMissing; the items
// are stored once a chunk (the same turn fills many questions' bundles)
// and a bundle lists their positions, runs of 3 or more consecutive ones
// shortened (runs). The trace stays raw so that fields
// added to it reach the page, but for its candidates, which go by column
// (see columns); it too is stored once a chunk (the same question's
// localization at every budget of a sweep) and the bundle names its
// position (-1: none).
type chunkBundle struct {
	Items  []int    `json:"i"` // positions in the chunk's item list, as runs gives them
	Trace  int      `json:"t"` // position in the chunk's trace list
	Branch []string `json:"branch,omitempty"`
}

// runs shortens a list of positions (none negative): each run of three or
// more consecutive positions p, p+1, …, p+k becomes p, -k. Full context's
// bundle is the episode's turns in order, one item each, and a bundle that
// starts with its branch lists the branch's turns in order: a few numbers
// rather than hundreds, which even gzipped took a fifth of Full's bundle
// chunks. The page's bundleAt expands them.
func runs(ps []int) []int {
	out := make([]int, 0, len(ps))
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if j-i >= 2 {
			out = append(out, ps[i], -(j - i))
		} else {
			out = append(out, ps[i:j+1]...)
		}
		i = j + 1
	}
	return out
}

// bundleLine is a bundles.jsonl record with its trace left undecoded.
type bundleLine struct {
	Items  []record.BundleItem `json:"items"`
	Trace  json.RawMessage     `json:"trace"`
	Branch []string            `json:"branch"`
}

// packer groups encoded records into data files of about limit bytes
// (data/<prefix><n>.js, a JSON list), so that opening one record loads
// little however large the run.
type packer struct {
	site   *site
	prefix string
	limit  int
	n      int // files written
	items  [][]byte
	size   int
}

// add appends one encoded record and returns its file and position.
func (p *packer) add(b []byte) (int, int, error) {
	if len(p.items) > 0 && p.size+len(b) > p.limit {
		if err := p.flush(); err != nil {
			return 0, 0, err
		}
	}
	f, at := p.push(b, len(b))
	return f, at, nil
}

// push appends one encoded record, counting size bytes of it towards the
// file's limit, and returns its file and position.
func (p *packer) push(b []byte, size int) (int, int) {
	p.items = append(p.items, b)
	p.size += size
	return p.n, len(p.items) - 1
}

func (p *packer) flush() error { return p.flushAs(nil, nil) }

// flushAs writes the open file: its list of records, between head and
// tail when given.
func (p *packer) flushAs(head, tail []byte) error {
	if len(p.items) == 0 {
		return nil
	}
	// The items are encoded already: join them rather than have
	// json.Marshal validate every byte again.
	data := append(append(append(head, '['), bytes.Join(p.items, []byte{','})...), ']')
	data = append(data, tail...)
	name := fmt.Sprintf("%s%d", p.prefix, p.n)
	p.items, p.size = nil, 0
	p.n++
	return p.site.writeData(name, data)
}

// chunker groups one system's bundles into data files
// (data/b-<run>-<system>-<n>.js: {n: [names], b: [bundles]}); the names
// (channels, blocks, source ids) are stored once a file.
type chunker struct {
	packer
	texts *textStore
	names interner[string]
	uniq  interner[[]int]
	trace interner[json.RawMessage]
}

// interner numbers values in the order they are first given, so that a
// data file stores each once and refers to it by position.
type interner[T any] struct {
	at   map[string]int
	list []T
}

// of is the position of v, known by key.
func (in *interner[T]) of(key string, v T) int {
	if at, ok := in.at[key]; ok {
		return at
	}
	if in.at == nil {
		in.at = map[string]int{}
	}
	in.at[key] = len(in.list)
	in.list = append(in.list, v)
	return len(in.list) - 1
}

// add appends one bundle (a bundles.jsonl line) and returns its chunk and
// position.
func (c *chunker) add(line []byte) (int, int, error) {
	var in bundleLine
	if err := json.Unmarshal(line, &in); err != nil {
		return 0, 0, err
	}
	// A chunk is about limit bytes of bundles.jsonl lines: the encoding
	// needs the file's names, so it comes after the cut.
	if len(c.items) > 0 && c.size+len(line) > c.limit {
		if err := c.flush(); err != nil {
			return 0, 0, err
		}
	}
	trace, err := columns(in.Trace)
	if err != nil {
		return 0, 0, err
	}
	out := chunkBundle{Items: make([]int, len(in.Items)), Trace: -1, Branch: in.Branch}
	if trace != nil {
		out.Trace = c.trace.of(string(trace), trace)
	}
	for i, it := range in.Items {
		block := -1
		if it.Block != "" {
			block = c.names.of(it.Block, it.Block)
		}
		at := [2]int{textNone, 0}
		text, ok := it.Text, it.Text != ""
		if it.Ref != "" {
			if text, ok = c.texts.texts[it.Ref]; !ok {
				at[0] = textMissing
			}
		}
		if ok {
			if at, err = c.texts.place(text); err != nil {
				return 0, 0, err
			}
		}
		item := append(make([]int, 0, 5+len(it.Sources)), c.names.of(it.Channel, it.Channel), block, it.Tokens, at[0], at[1])
		for _, src := range it.Sources {
			item = append(item, c.names.of(src, src))
		}
		out.Items[i] = c.uniq.of(fmt.Sprint(item), item)
	}
	out.Items = runs(out.Items)
	b, err := json.Marshal(out)
	if err != nil {
		return 0, 0, err
	}
	f, at := c.push(b, len(line)) // counted in input bytes, as the cut is
	return f, at, nil
}

func (c *chunker) flush() error {
	names, err := json.Marshal(c.names.list)
	if err != nil {
		return err
	}
	items, err := json.Marshal(c.uniq.list)
	if err != nil {
		return err
	}
	traces, err := json.Marshal(c.trace.list)
	if err != nil {
		return err
	}
	c.names, c.uniq, c.trace = interner[string]{}, interner[[]int]{}, interner[json.RawMessage]{}
	head := append(append(append(append([]byte(`{"n":`), names...), `,"u":`...), items...), `,"t":`...)
	head = append(append(head, traces...), `,"b":`...)
	return c.flushAs(head, []byte{'}'})
}

// columns rewrites a trace's candidates, a list of objects with the same
// few keys, by column: {cols: [keys, sorted], vals: [per key, its value
// for each candidate in order]} (null where a candidate lacks a key). The
// keys are stored once, and numbers to the 3 decimals the page shows
// (shortNumber; bundles.jsonl keeps them whole). By column rather than by
// candidate because a column's numbers resemble each other (a score
// part's range, its leading digits), which the data file's gzip then
// stores in fewer bytes: a tenth less for a real ArborMem run's bundles.
// Any other trace passes through as it is; null or empty is nil.
func columns(trace json.RawMessage) (json.RawMessage, error) {
	if len(trace) == 0 || string(trace) == "null" {
		return nil, nil
	}
	var tr map[string]json.RawMessage
	if json.Unmarshal(trace, &tr) != nil {
		return trace, nil
	}
	var cands []map[string]json.RawMessage
	if json.Unmarshal(tr["candidates"], &cands) != nil || len(cands) == 0 {
		return trace, nil
	}
	keys := map[string]bool{}
	for _, c := range cands {
		for k := range c {
			keys[k] = true
		}
	}
	if len(keys) == 0 {
		// Candidates without a key: by column they would be no columns,
		// which say nothing of how many candidates there were.
		return trace, nil
	}
	cols := sortedKeys(keys)
	vals := make([][]json.RawMessage, len(cols))
	for j, k := range cols {
		vals[j] = make([]json.RawMessage, len(cands))
		for i, c := range cands {
			if v, ok := c[k]; ok {
				vals[j][i] = shortNumber(v)
			} else {
				vals[j][i] = json.RawMessage("null")
			}
		}
	}
	b, err := json.Marshal(map[string]any{"cols": cols, "vals": vals})
	if err != nil {
		return nil, err
	}
	tr["candidates"] = b
	return json.Marshal(tr)
}

// shortNumber is a JSON number as the page shows it, to 3 decimals,
// rounded as JavaScript's toFixed(3) rounds (the exact binary value, half
// away from zero), so the page shows the same digits as from the whole
// number; anything else, a number the page would show as -0.000, and a
// number already as short, pass unchanged.
func shortNumber(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return v
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) || math.Abs(f) >= 1e15 {
		return v
	}
	x := new(big.Float).SetPrec(256).SetFloat64(math.Abs(f)) // exact
	x.Mul(x, big.NewFloat(1000))
	n, _ := x.Int(nil) // floor, x being positive
	if frac := new(big.Float).Sub(x, new(big.Float).SetInt(n)); frac.Cmp(big.NewFloat(0.5)) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	if n.Sign() == 0 && f < 0 {
		return v
	}
	q, r := new(big.Int).QuoRem(n, big.NewInt(1000), new(big.Int))
	short := fmt.Sprintf("%s.%03d", q, r.Int64())
	short = strings.TrimRight(strings.TrimRight(short, "0"), ".")
	if f < 0 {
		short = "-" + short
	}
	if len(short) < len(v) {
		return json.RawMessage(short)
	}
	return v
}

// readTexts loads bundle-texts.jsonl; a missing file or path is empty, and
// a malformed line is skipped (its items show without text).
func readTexts(path string) (map[string]string, error) {
	out := map[string]string{}
	_, err := eachLine(path, func(line []byte) {
		var t record.BundleText
		if json.Unmarshal(line, &t) == nil && t.Ref != "" {
			out[t.Ref] = t.Text
		}
	})
	return out, err
}

// forestDraw is a forest as the page draws it (forestview's drawForest
// reads these fields of a View): what the drawing needs and no more.
type forestDraw struct {
	Heuristic bool         `json:"heuristic,omitempty"`
	Roots     []string     `json:"roots"`
	Active    string       `json:"active,omitempty"`
	Nodes     []forestNode `json:"nodes"`
}

type forestNode struct {
	ID      string `json:"id"`
	Parent  string `json:"parent,omitempty"`
	Root    string `json:"root"`
	Topic   string `json:"topic,omitempty"`
	Summary string `json:"summary"`
}

// readForests loads forests.jsonl as the drawings of each (system,
// variant, episode) a forest was answered for (forestKey), the latest line
// of an instance winning; recorded says whether the file exists. A missing
// file or path is empty, and a malformed line (or view) is skipped: that
// question shows without its forest.
func readForests(path string) (map[string][]byte, bool, error) {
	out := map[string][]byte{}
	recorded, err := eachLine(path, func(line []byte) {
		var f record.Forest
		var v forestview.View
		if json.Unmarshal(line, &f) != nil || json.Unmarshal(f.View, &v) != nil {
			return
		}
		d := forestDraw{Heuristic: v.Heuristic, Roots: v.Roots, Active: v.Active, Nodes: make([]forestNode, len(v.Nodes))}
		for k, n := range v.Nodes {
			d.Nodes[k] = forestNode{ID: n.ID, Parent: n.Parent, Root: n.Root, Topic: n.Topic, Summary: n.Summary}
		}
		b, err := json.Marshal(d)
		if err != nil {
			return
		}
		variants := f.Variants
		if len(variants) == 0 {
			variants = []string{f.Variant}
		}
		for _, variant := range variants {
			out[forestKey(f.System, variant, f.Episode)] = b
		}
	})
	return out, recorded, err
}

// eachLine calls fn with each non-blank line of the JSONL file at path,
// trimmed, and reports whether the file exists; a missing file or an empty
// path calls nothing. The report's side files are read this way, leniently:
// the caller skips what it cannot decode (a torn last line from a killed
// run, or an edited file), and the report shows what it can.
func eachLine(path string, fn func([]byte)) (bool, error) {
	if path == "" {
		return false, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if body := bytes.TrimSpace(line); len(body) > 0 {
			fn(body)
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, fmt.Errorf("read %s: %w", path, err)
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
