// Package beam loads BEAM (Tavakoli et al., "Beyond a Million Tokens") from
// the layout of its GitHub repository (mohammadtavakoli78/BEAM):
// chats/<split>/<id>/chat.json, an optional chat_trunecated.json (sic) and
// probing_questions/probing_questions.json. Nothing is downloaded: users pass
// the repository root, a split directory (chats/100K) or one chat directory
// with --data. The repository root means the 100K split, the one the paper
// evaluates (§6.1: "BEAM 100K contains 20 coherent conversations and 400
// questions across ten categories").
//
// chat.json is an array of batches {batch_number, turns, time_anchor}; a turn
// is a list of messages {role, id, content, question_type?, index?,
// time_anchor?} whose ids are global across the chat. The batch-level
// time_anchor is null in the released files; the real anchor
// ("March-15-2024") sits on the first message of a batch.
//
// Each chat becomes one episode (paper appendix C.1: "Memory is constructed
// once for each of the 20 conversations and reused for its associated
// questions"): its messages as interactions of one user message and the
// assistant reply (the official long_term_methods.py pairs a turn's
// messages turn[i:i+2] the same way), then every probing question at the
// end. Each interaction carries its BEAM turn as dialog.Interaction.Chunk:
// the BM25 baseline indexes turn chunks, as the paper's BEAM adapter does
// (appendix C.2: "uses the benchmark turn-chunk representation").
package beam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Name is the benchmark name the loader registers under.
const Name = "beam"

// DefaultSplit is the split a repository root resolves to.
const DefaultSplit = "100K"

// File names inside a chat directory. chat_trunecated.json is spelled as in
// the repository and, when present, replaces chat.json, as the official
// answer_generation.py does ("if os.path.exists(... 'chat_trunecated.json')").
const (
	chatFile      = "chat.json"
	truncatedFile = "chat_trunecated.json"
	probingFile   = "probing_questions/probing_questions.json"
)

// No hash is published for BEAM's files (they live in git, not in a
// release), so none is registered and inspect says so.
func init() {
	datasets.Register(Name, Load)
	datasets.RegisterFiles(Name, Files)
}

// Files lists the files Load reads from path: each chat's chat file
// (chat_trunecated.json when present) and its probing questions.
func Files(path string) ([]string, error) {
	dirs, err := chatDirs(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		out = append(out, chatFiles(d)...)
	}
	return out, nil
}

// chatFiles are the two files read from a chat directory.
func chatFiles(dir string) []string {
	return []string{chatPath(dir), filepath.Join(dir, filepath.FromSlash(probingFile))}
}

// Categories are BEAM's ten memory abilities, the keys of
// probing_questions.json.
var Categories = []string{
	"abstention", "contradiction_resolution", "event_ordering", "information_extraction",
	"instruction_following", "knowledge_update", "multi_session_reasoning",
	"preference_following", "summarization", "temporal_reasoning",
}

// goldFields are the fields that hold a category's reference response, in
// the order they are looked for: abstention uses ideal_response,
// contradiction_resolution ideal_answer, summarization ideal_summary,
// instruction_following and preference_following expected_compliance, the
// rest answer (chats/100K/*/probing_questions/probing_questions.json).
var goldFields = []string{"answer", "ideal_response", "ideal_answer", "ideal_summary", "expected_compliance"}

// anchorLayouts parse time anchors ("March-15-2024"; zero-padded days and
// other spellings occur in derived files).
var anchorLayouts = []string{"January-2-2006", "Jan-2-2006", "January 2, 2006", "2006-01-02"}

func canonCategory(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "-", "_"), " ", "_")
	for _, c := range Categories {
		if s == c {
			return c
		}
	}
	return ""
}

// Load reads BEAM chats into episodes, one per chat. opt.Categories keeps
// probing categories; empty keeps all ten.
func Load(ctx context.Context, path string, opt datasets.Options) ([]datasets.Episode, error) {
	if path == "" {
		return nil, fmt.Errorf("load %s: no path given: pass the BEAM repository, a split (chats/100K) or a chat directory with --data (nothing is downloaded)", Name)
	}
	filter, err := loadkit.NewFilter(opt.Categories, nil, canonCategory)
	if err != nil {
		return nil, fmt.Errorf("load %s %s: categories: %w", Name, path, err)
	}
	dirs, err := chatDirs(path)
	if err != nil {
		return nil, fmt.Errorf("load %s %s: %w", Name, path, err)
	}
	// Progress is reported in bytes of the chat and probing files read.
	var total, done int64
	sizes := make([]int64, len(dirs))
	for k, dir := range dirs {
		for _, f := range chatFiles(dir) {
			if st, err := os.Stat(f); err == nil {
				sizes[k] += st.Size()
			}
		}
		total += sizes[k]
	}
	var eps []datasets.Episode
	for k, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ep, err := loadChat(dir, filter)
		if err != nil {
			return nil, fmt.Errorf("load %s %w", Name, err)
		}
		eps = append(eps, ep)
		done += sizes[k]
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	return eps, nil
}

// chatDirs resolves --data to chat directories: a chat file or directory,
// a split directory (numeric subdirectories in numeric order, as
// answer_generation.py sorts them), or the repository root.
func chatDirs(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if b := filepath.Base(path); b == chatFile || b == truncatedFile {
			return []string{filepath.Dir(path)}, nil
		}
		return nil, fmt.Errorf("expected the BEAM repository, a split directory (chats/100K) or a chat directory, got a file")
	}
	if isChat(path) {
		return []string{path}, nil
	}
	if chats := filepath.Join(path, "chats"); isDir(chats) {
		split := filepath.Join(chats, DefaultSplit)
		if !isDir(split) {
			return nil, fmt.Errorf("repository has no chats/%s split; pass a split directory instead", DefaultSplit)
		}
		path = split
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	type numbered struct {
		n    int
		name string
	}
	var chats []numbered
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.Trim(name, "0123456789") != "" {
			continue
		}
		if n, err := strconv.Atoi(name); err == nil {
			chats = append(chats, numbered{n, name})
		}
	}
	if len(chats) == 0 {
		return nil, fmt.Errorf("no chat directories (numbered subdirectories holding %s) found", chatFile)
	}
	sort.Slice(chats, func(i, j int) bool {
		if chats[i].n != chats[j].n {
			return chats[i].n < chats[j].n
		}
		return chats[i].name < chats[j].name
	})
	var dirs []string
	for _, c := range chats {
		dirs = append(dirs, filepath.Join(path, c.name))
	}
	return dirs, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isChat(dir string) bool {
	for _, f := range []string{chatFile, truncatedFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// chatPath is the chat file the official pipeline reads from dir.
func chatPath(dir string) string {
	file := filepath.Join(dir, truncatedFile)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return filepath.Join(dir, chatFile)
	}
	return file
}

type batch struct {
	BatchNumber json.RawMessage `json:"batch_number"`
	Turns       [][]message     `json:"turns"`
	TimeAnchor  *string         `json:"time_anchor"`
}

type message struct {
	Role       string          `json:"role"`
	ID         json.RawMessage `json:"id"`
	Content    string          `json:"content"`
	TimeAnchor *string         `json:"time_anchor"`
	// question_type and index are generation labels; not read.
}

func loadChat(dir string, filter loadkit.Filter) (datasets.Episode, error) {
	id := filepath.Base(filepath.Clean(dir))
	file := chatPath(dir)
	ep := datasets.Episode{ID: id, Benchmark: Name}
	data, err := os.ReadFile(file)
	if err != nil {
		return ep, err
	}
	if err := loadkit.CheckUTF8(data); err != nil {
		return ep, fmt.Errorf("%s: %w", file, err)
	}
	byMsg, last, err := parseChat(data, &ep)
	if err != nil {
		return ep, fmt.Errorf("%s: %w", file, err)
	}
	pfile := filepath.Join(dir, filepath.FromSlash(probingFile))
	if data, err = os.ReadFile(pfile); err != nil {
		return ep, err
	}
	if err := loadkit.CheckUTF8(data); err != nil {
		return ep, fmt.Errorf("%s: %w", pfile, err)
	}
	qs, err := parseProbing(data, id, last, byMsg, filter)
	if err != nil {
		return ep, fmt.Errorf("%s: %w", pfile, err)
	}
	for _, q := range qs {
		ep.Steps = append(ep.Steps, datasets.Step{Question: q})
	}
	return ep, nil
}

// parseChat appends a chat file's interactions to ep and returns the map
// from message id to interaction ID and the last time anchor.
func parseChat(data []byte, ep *datasets.Episode) (map[int64]string, time.Time, error) {
	var err error
	if isPlanLayout(data) {
		return nil, time.Time{}, fmt.Errorf("the 10M split's plan layout is not supported; pass a 100K, 500K or 1M split")
	}
	var batches []batch
	if err := json.Unmarshal(data, &batches); err != nil {
		return nil, time.Time{}, loadkit.FieldError(err)
	}
	// A chat of null, [] or batches without messages would load as an
	// episode with nothing to remember, and its questions would be answered
	// against an empty memory as if that were a result.
	if batches == nil {
		return nil, time.Time{}, fmt.Errorf("expected a list of batches, got null")
	}
	byMsg := map[int64]string{}
	var anchor time.Time
	for b, bt := range batches {
		if bt.Turns == nil {
			return nil, time.Time{}, fmt.Errorf("batch %d: turns: expected a list of turns, got nothing", b)
		}
		session := fmt.Sprintf("batch-%d", b+1)
		if n, err := strconv.Atoi(strings.TrimSpace(string(bt.BatchNumber))); err == nil {
			session = fmt.Sprintf("batch-%d", n)
		}
		if bt.TimeAnchor != nil && strings.TrimSpace(*bt.TimeAnchor) != "" {
			if anchor, err = loadkit.ParseTime(*bt.TimeAnchor, anchorLayouts...); err != nil {
				return nil, time.Time{}, fmt.Errorf("batch %d: time_anchor: %w", b, err)
			}
		}
		for t, msgs := range bt.Turns {
			// One BEAM turn is one retrieval chunk, as BEAM's own BM25
			// baseline builds them (mohammadtavakoli78/BEAM,
			// long_term_methods.py, create_chunking, retrieval_method
			// "turn_chunk": for each batch, for each turn in batch["turns"],
			// one chunk of all the turn's messages).
			chunk := fmt.Sprintf("%s/turn-%d", session, t+1)
			roles := make([]string, len(msgs))
			turns := make([]dialog.Turn, len(msgs))
			ids := make([]int64, len(msgs))
			times := make([]time.Time, len(msgs))
			for m, msg := range msgs {
				field := fmt.Sprintf("batch %d: turns[%d][%d]", b, t, m)
				if msg.Role != dialog.RoleUser && msg.Role != dialog.RoleAssistant {
					return nil, time.Time{}, fmt.Errorf("%s.role: expected \"user\" or \"assistant\", got %q", field, msg.Role)
				}
				mid, err := messageID(msg.ID)
				if err != nil {
					return nil, time.Time{}, fmt.Errorf("%s.id: %w", field, err)
				}
				if _, dup := byMsg[mid]; dup {
					return nil, time.Time{}, fmt.Errorf("%s.id: %d is used twice", field, mid)
				}
				byMsg[mid] = "" // reserved; set once the interaction is known
				// Most messages carry no anchor (absent, null or ""): the
				// last anchor holds until the next one.
				if msg.TimeAnchor != nil && strings.TrimSpace(*msg.TimeAnchor) != "" {
					if anchor, err = loadkit.ParseTime(*msg.TimeAnchor, anchorLayouts...); err != nil {
						return nil, time.Time{}, fmt.Errorf("%s.time_anchor: %w", field, err)
					}
				}
				roles[m], ids[m], times[m] = msg.Role, mid, anchor
				turns[m] = dialog.Turn{ID: strconv.FormatInt(mid, 10), Role: msg.Role, Content: msg.Content}
			}
			for _, g := range loadkit.Group(roles) {
				in := &dialog.Interaction{ID: "m" + turns[g[0]].ID, Session: session, Time: times[g[0]], Turns: turns[g[0]:g[1]:g[1]], Chunk: chunk}
				for m := g[0]; m < g[1]; m++ {
					byMsg[ids[m]] = in.ID
				}
				ep.Steps = append(ep.Steps, datasets.Step{Interaction: in})
			}
		}
	}
	if len(byMsg) == 0 {
		return nil, time.Time{}, fmt.Errorf("no messages: expected a list of batches with turns of messages, got %d batches and no message", len(batches))
	}
	return byMsg, anchor, nil
}

// isPlanLayout recognises the 10M split's chat.json, an array of
// {"plan-N": [batches]} objects.
func isPlanLayout(data []byte) bool {
	var plans []map[string]json.RawMessage
	if json.Unmarshal(data, &plans) != nil || len(plans) == 0 {
		return false
	}
	for k := range plans[0] {
		if strings.HasPrefix(k, "plan") {
			return true
		}
	}
	return false
}

func messageID(raw json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(raw))
	s = strings.Trim(s, `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("expected a non-negative integer, got %s", loadkit.Snippet(raw))
	}
	return n, nil
}

// parseProbing reads probing_questions.json into questions asked at when.
func parseProbing(data []byte, chat string, when time.Time, byMsg map[int64]string, filter loadkit.Filter) ([]*datasets.Question, error) {
	var byCat map[string][]map[string]json.RawMessage
	if err := json.Unmarshal(data, &byCat); err != nil {
		return nil, loadkit.FieldError(err)
	}
	if byCat == nil {
		return nil, fmt.Errorf("expected an object keyed by category, got %s", loadkit.Snippet(data))
	}
	for k := range byCat {
		if canonCategory(k) != k {
			return nil, fmt.Errorf("%s: unknown category (known: %s)", strconv.Quote(k), strings.Join(Categories, ", "))
		}
	}
	var out []*datasets.Question
	for _, cat := range Categories {
		if !filter.Keep(cat) {
			continue
		}
		for i, fields := range byCat[cat] {
			q, err := probe(chat, cat, i, fields, when, byMsg)
			if err != nil {
				return nil, loadkit.At(fmt.Sprintf("%s[%d]", cat, i), err)
			}
			out = append(out, q)
		}
	}
	return out, nil
}

func probe(chat, cat string, i int, fields map[string]json.RawMessage, when time.Time, byMsg map[int64]string) (*datasets.Question, error) {
	var text string
	if err := json.Unmarshal(fields["question"], &text); err != nil || strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("question: expected a non-empty string, got %s", loadkit.Snippet(fields["question"]))
	}
	var rubric []string
	if err := json.Unmarshal(fields["rubric"], &rubric); err != nil || len(rubric) == 0 {
		return nil, fmt.Errorf("rubric: expected a non-empty list of strings, got %s", loadkit.Snippet(fields["rubric"]))
	}
	q := &datasets.Question{
		ID:         fmt.Sprintf("%s:%s:%d", chat, cat, i),
		Text:       text,
		Time:       when,
		Category:   cat,
		Rubric:     rubric,
		Abstention: cat == "abstention",
		Labels:     map[string]string{"index": strconv.Itoa(i)},
		Extra:      map[string]any{},
	}
	for _, f := range goldFields {
		if raw, ok := fields[f]; ok && !loadkit.IsNull(raw) {
			g, err := loadkit.AnswerText(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			q.Gold = g
			break
		}
	}
	for k, raw := range fields {
		if k == "question" || k == "rubric" {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", k, loadkit.FieldError(err))
		}
		q.Extra[k] = v
	}
	// source_chat_ids name the message ids holding the evidence (a list, or
	// an object of lists such as {"first_statement": [58], ...}); they map to
	// interactions for evidence recall. Ids absent from a truncated chat are
	// kept visible in a label.
	ids, err := sourceIDs(fields["source_chat_ids"])
	if err != nil {
		return nil, fmt.Errorf("source_chat_ids: %w", err)
	}
	var unresolved []string
	for _, id := range ids {
		if in := byMsg[id]; in != "" {
			q.Evidence = loadkit.AppendUnique(q.Evidence, in)
		} else {
			unresolved = append(unresolved, strconv.FormatInt(id, 10))
		}
	}
	if len(unresolved) > 0 {
		q.Labels["evidence_unresolved"] = strings.Join(unresolved, " ")
	}
	return q, nil
}

func sourceIDs(raw json.RawMessage) ([]int64, error) {
	if loadkit.IsNull(raw) {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out []int64
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case json.Number:
			n, err := x.Int64()
			if err != nil || n < 0 {
				return fmt.Errorf("expected message ids, got %s", x)
			}
			out = append(out, n)
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := walk(x[k]); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("expected a list or an object of lists of message ids, got %s", loadkit.Snippet(raw))
		}
		return nil
	}
	return out, walk(v)
}
