// Package locomo loads LoCoMo (Maharana et al., ACL 2024) from the official
// locomo10.json (snap-research/locomo, data/locomo10.zip). Nothing is
// downloaded: users pass the file with --data.
//
// Format (snap-research/locomo README.MD, "Data"): a JSON array of
// conversations with sample_id; conversation {speaker_a, speaker_b,
// session_<N> turn lists, session_<N>_date_time}; qa [{question, answer,
// evidence, category, adversarial_answer?}]; plus generated observations
// and summaries, which are ignored. A turn has speaker, dia_id ("D3:5"),
// text and, for shared images, img_url, blip_caption and query.
//
// Each conversation becomes one episode (paper appendix C.1: "Memory is
// constructed once for each conversation and reused across its associated
// questions"): its sessions in order, then its questions at the end (paper
// §6.1). By default only categories 1–4 are kept, the paper's 1,540
// questions (§6.1: category 5 is excluded).
//
// Modelling choices, since LoCoMo is a dialogue between two people rather
// than a user and an assistant: speaker_a maps to the user role and
// speaker_b to the assistant role, with Turn.Speaker holding the real name;
// an interaction is a pair of consecutive turns within a session (a
// trailing odd turn is its own interaction), its ID the first turn's
// dia_id, and its time the session date. LoCoMo gives no question date, so
// Question.Time is the last session's date.
package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Name is the benchmark name the loader registers under.
const Name = "locomo"

func init() {
	datasets.Register(Name, Load)
	// locomo10.json as extracted from data/locomo10.zip (and as served raw
	// from the repository's data/ folder); size and hash recorded by public
	// benchmark harnesses that pin it. No hash is published by the authors.
	datasets.RegisterRelease(Name, datasets.Release{
		File: "locomo10.json", SHA256: "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
		Bytes: 2805274, Source: "github.com/snap-research/locomo (data/locomo10.zip)",
	})
}

// CategoryNames maps LoCoMo's category codes to names. The codes follow the
// released file (category 1 multi-hop, 2 temporal, 3 open-domain, 4
// single-hop, 5 adversarial), which differs from the order in the paper's
// prose; task_eval/evaluation.py scores 1 as multi-answer F1 and 5 as
// adversarial.
var CategoryNames = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// DefaultCategories is the paper's evaluation set (§6.1: categories 1–4).
var DefaultCategories = []string{"1", "2", "3", "4"}

func canonCategory(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "_", "-"), " ", "-")
	for code, name := range CategoryNames {
		if s == strconv.Itoa(code) || s == name || s == strings.ReplaceAll(name, "-", "") {
			return strconv.Itoa(code)
		}
	}
	return ""
}

// Date layouts of session_<N>_date_time ("1:56 pm on 8 May, 2023"). Go's
// "pm" matches lower case and "PM" upper case, so both are listed.
var dateLayouts = []string{
	"3:04 pm on 2 January, 2006", "3:04 PM on 2 January, 2006",
	"3:04 pm on 2 Jan, 2006", "3:04 PM on 2 Jan, 2006",
	"3:04 pm on 2 January 2006", "3:04 PM on 2 January 2006",
}

type sample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []json.RawMessage          `json:"qa"`
}

type rawTurn struct {
	Speaker     string          `json:"speaker"`
	DiaID       string          `json:"dia_id"`
	Text        *string         `json:"text"`
	CleanText   *string         `json:"clean_text"`
	BlipCaption string          `json:"blip_caption"`
	ImgURL      json.RawMessage `json:"img_url"` // a list in locomo10; not needed
	Query       string          `json:"query"`
}

type rawQA struct {
	Question          string          `json:"question"`
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
	Evidence          json.RawMessage `json:"evidence"`
	Category          json.RawMessage `json:"category"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Load reads locomo10.json into episodes, one per conversation.
// opt.Categories takes codes ("1") or names ("temporal"), or "all"; empty
// keeps categories 1–4.
func Load(ctx context.Context, path string, opt datasets.Options) ([]datasets.Episode, error) {
	if path == "" {
		return nil, fmt.Errorf("load %s: no file given: pass the official locomo10.json with --data (nothing is downloaded)", Name)
	}
	filter, err := loadkit.NewFilter(opt.Categories, DefaultCategories, canonCategory)
	if err != nil {
		return nil, fmt.Errorf("load %s %s: categories: %w", Name, path, err)
	}
	var eps []datasets.Episode
	err = loadkit.DecodeFile(Name, path, func(r io.Reader, size int64) error {
		eps, err = decode(ctx, r, size, filter, opt.Progress)
		return err
	})
	if err != nil {
		return nil, err
	}
	return eps, nil
}

// decode reads conversations from r one at a time.
func decode(ctx context.Context, r io.Reader, size int64, filter loadkit.Filter, progress func(done, total int64)) ([]datasets.Episode, error) {
	var eps []datasets.Episode
	seen := map[string]int{}
	err := loadkit.DecodeArray(ctx, r, size, progress, func(i int, dec *json.Decoder) error {
		var s sample
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("%s: %w", where(i, s.SampleID), loadkit.FieldError(err))
		}
		ep, err := build(s, filter)
		if err != nil {
			return fmt.Errorf("%s: %w", where(i, s.SampleID), err)
		}
		if j, dup := seen[s.SampleID]; dup {
			return fmt.Errorf("%s: sample_id: duplicate of conversation %d", where(i, s.SampleID), j)
		}
		seen[s.SampleID] = i
		eps = append(eps, ep)
		return nil
	})
	return eps, err
}

func where(i int, id string) string { return loadkit.Where("conversation", i, id) }

func build(s sample, filter loadkit.Filter) (datasets.Episode, error) {
	if strings.TrimSpace(s.SampleID) == "" {
		return datasets.Episode{}, fmt.Errorf("sample_id: expected a non-empty string")
	}
	if s.Conversation == nil {
		return datasets.Episode{}, fmt.Errorf("conversation: expected an object")
	}
	speakers := [2]string{}
	for k, key := range []string{"speaker_a", "speaker_b"} {
		if err := json.Unmarshal(s.Conversation[key], &speakers[k]); err != nil || strings.TrimSpace(speakers[k]) == "" {
			return datasets.Episode{}, fmt.Errorf("conversation.%s: expected a non-empty string, got %s", key, loadkit.Snippet(s.Conversation[key]))
		}
	}
	if speakers[0] == speakers[1] {
		return datasets.Episode{}, fmt.Errorf("conversation.speaker_b: expected a name different from speaker_a, got %q for both", speakers[0])
	}

	// Sessions are discovered from the session_<N> keys, never from the
	// date keys: conv-26 carries session_<N>_date_time keys for sessions
	// that do not exist. They are replayed in numeric order (README.MD: the
	// numbers give the chronological order), so session_10 follows session_9.
	var nums []int
	for key := range s.Conversation {
		if m := sessionKey.FindStringSubmatch(key); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return datasets.Episode{}, fmt.Errorf("conversation.%s: session number out of range", key)
			}
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)

	ep := datasets.Episode{ID: s.SampleID, Benchmark: Name}
	byDia := map[string]string{} // normalised dia_id -> interaction ID
	seenDia := map[string]string{}
	var last time.Time
	for _, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		var turns []rawTurn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return datasets.Episode{}, fmt.Errorf("conversation.%s: %w", key, loadkit.FieldError(err))
		}
		// Empty sessions are skipped, as the official scripts do
		// (task_eval/evaluate_gpts.py: `if len(data['session_%s' % i]) == 0: continue`),
		// so their date keys may be blank; so may orphan date keys, which
		// are never read.
		if len(turns) == 0 {
			continue
		}
		dkey := key + "_date_time"
		var ds string
		if err := json.Unmarshal(s.Conversation[dkey], &ds); err != nil || loadkit.IsNull(s.Conversation[dkey]) {
			return datasets.Episode{}, fmt.Errorf("conversation.%s: expected a date string like \"1:56 pm on 8 May, 2023\", got %s", dkey, loadkit.Snippet(s.Conversation[dkey]))
		}
		date, err := loadkit.ParseTime(ds, dateLayouts...)
		if err != nil {
			return datasets.Episode{}, fmt.Errorf("conversation.%s: %w", dkey, err)
		}
		last = date
		var cur *dialog.Interaction
		for j, t := range turns {
			field := fmt.Sprintf("conversation.%s[%d]", key, j)
			dt, err := turn(t, speakers)
			if err != nil {
				return datasets.Episode{}, loadkit.At(field, err)
			}
			if prev, dup := seenDia[dt.ID]; dup {
				return datasets.Episode{}, fmt.Errorf("%s.dia_id: %q already used at %s", field, dt.ID, prev)
			}
			seenDia[dt.ID] = field
			if j%2 == 0 {
				cur = &dialog.Interaction{ID: dt.ID, Session: key, Time: date}
				ep.Steps = append(ep.Steps, datasets.Step{Interaction: cur})
			}
			cur.Turns = append(cur.Turns, dt)
			byDia[normDia(dt.ID)] = cur.ID
		}
	}

	if s.QA == nil {
		// Every conversation of locomo10.json has its questions; one
		// without is a damaged file, not a conversation to replay unasked.
		return datasets.Episode{}, fmt.Errorf("qa: missing (expected the conversation's list of questions)")
	}
	for j, raw := range s.QA {
		q, keep, err := question(s.SampleID, j, raw, byDia, filter)
		if err != nil {
			return datasets.Episode{}, loadkit.At(fmt.Sprintf("qa[%d]", j), err)
		}
		if !keep {
			continue
		}
		q.Time = last
		ep.Steps = append(ep.Steps, datasets.Step{Question: q})
	}
	return ep, nil
}

// turn converts one LoCoMo turn. Image turns are rendered as text with the
// BLIP caption appended ("… and shared <caption>"), the caption being the
// only machine-readable content of the photo (the official prompts append
// it the same way: task_eval/evaluate_gpts.py adds "[shares <caption>]").
func turn(t rawTurn, speakers [2]string) (dialog.Turn, error) {
	// speaker_a is the user and speaker_b the assistant, and any other name
	// is an error, as in the Mem0 authors' LoCoMo harness
	// (mem0ai/mem0 evaluation/src/memzero/add.py: "Unknown speaker").
	var role string
	switch t.Speaker {
	case speakers[0]:
		role = dialog.RoleUser
	case speakers[1]:
		role = dialog.RoleAssistant
	default:
		return dialog.Turn{}, fmt.Errorf("speaker: expected %q or %q, got %q", speakers[0], speakers[1], t.Speaker)
	}
	if strings.TrimSpace(t.DiaID) == "" {
		return dialog.Turn{}, fmt.Errorf("dia_id: expected a non-empty string")
	}
	var text string
	switch {
	case t.Text != nil:
		text = *t.Text
	case t.CleanText != nil:
		text = *t.CleanText
	default:
		return dialog.Turn{}, fmt.Errorf("text: expected a string, got nothing")
	}
	if c := strings.TrimSpace(t.BlipCaption); c != "" {
		if strings.TrimSpace(text) == "" {
			text = "shared " + c
		} else {
			text += " and shared " + c
		}
	}
	return dialog.Turn{ID: t.DiaID, Role: role, Speaker: t.Speaker, Content: text}, nil
}

// diaPattern reads an evidence token: "D3:5", the zero-padded "D30:05" and
// the stray-colon "D:11:26" all resolve to session and turn numbers.
var diaPattern = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// normDia normalises a dia_id for lookup ("D30:05" -> "D30:5"); strings
// that are not dia_ids are returned as they are.
func normDia(s string) string {
	m := diaPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return strings.TrimSpace(s)
	}
	a, err1 := strconv.Atoi(m[1])
	b, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return strings.TrimSpace(s)
	}
	return fmt.Sprintf("D%d:%d", a, b)
}

// evidenceSplit separates ids packed into one string ("D8:6; D9:17",
// "D9:1 D4:4 D4:6").
var evidenceSplit = regexp.MustCompile(`[;,\s]+`)

func question(sampleID string, j int, raw json.RawMessage, byDia map[string]string, filter loadkit.Filter) (*datasets.Question, bool, error) {
	var r rawQA
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, false, loadkit.FieldError(err)
	}
	cat, err := category(r.Category)
	if err != nil {
		return nil, false, err
	}
	code := strconv.Itoa(cat)
	if !filter.Keep(code) {
		return nil, false, nil
	}
	if strings.TrimSpace(r.Question) == "" {
		return nil, false, fmt.Errorf("question: expected a non-empty string")
	}
	q := &datasets.Question{
		ID:       fmt.Sprintf("%s:%d", sampleID, j),
		Text:     r.Question,
		Category: code,
		Labels:   map[string]string{"category_name": CategoryNames[cat], "qa_index": strconv.Itoa(j)},
	}
	// Category 5 usually has no answer, only the adversarial (trap) answer;
	// two items ship both, and then the file's answer is the gold.
	if cat == 5 {
		q.Abstention = true
		if !loadkit.IsNull(r.AdversarialAnswer) {
			a, err := loadkit.AnswerText(r.AdversarialAnswer)
			if err != nil {
				return nil, false, fmt.Errorf("adversarial_answer: %w", err)
			}
			q.Labels["adversarial_answer"] = a
		}
	}
	if cat != 5 || !loadkit.IsNull(r.Answer) {
		if q.Gold, err = loadkit.AnswerText(r.Answer); err != nil {
			return nil, false, fmt.Errorf("answer: %w", err)
		}
	}
	ids, err := evidenceStrings(r.Evidence)
	if err != nil {
		return nil, false, err
	}
	var unresolved []string
	for _, e := range ids {
		e = strings.NewReplacer("(", " ", ")", " ").Replace(e)
		for _, tok := range evidenceSplit.Split(e, -1) {
			if tok == "" {
				continue
			}
			if id, ok := byDia[normDia(tok)]; ok {
				q.Evidence = loadkit.AppendUnique(q.Evidence, id)
			} else {
				unresolved = append(unresolved, tok)
			}
		}
	}
	// Malformed or dangling ids (bare "D", ids of turns that do not exist)
	// are kept visible rather than silently dropped.
	if len(unresolved) > 0 {
		q.Labels["evidence_unresolved"] = strings.Join(unresolved, " ")
	}
	return q, true, nil
}

func category(raw json.RawMessage) (int, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != float64(int(f)) || f < 1 || f > 5 {
		return 0, fmt.Errorf("category: expected 1–5, got %s", loadkit.Snippet(raw))
	}
	return int(f), nil
}

func evidenceStrings(raw json.RawMessage) ([]string, error) {
	if loadkit.IsNull(raw) {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	return nil, fmt.Errorf("evidence: expected a list of dia_id strings, got %s", loadkit.Snippet(raw))
}
