// Package longmemeval loads LongMemEval (Wu et al., ICLR 2025) from the
// official JSON files: longmemeval_s.json, longmemeval_m.json,
// longmemeval_oracle.json and the 2025 cleaned release
// (longmemeval_s_cleaned.json, longmemeval_m_cleaned.json). Nothing is
// downloaded: users pass the file with --data.
//
// Format (xiaowu0162/LongMemEval README.md, "Dataset Format"): a JSON array of
// 500 instances with question_id, question_type (six types), question,
// answer, question_date ("2023/05/30 (Tue) 23:40") and the parallel lists
// haystack_session_ids, haystack_dates, haystack_sessions (turns
// {role, content, has_answer?}) plus answer_session_ids.
//
// Each instance becomes one episode (paper appendix C.1: "Each question uses
// an isolated memory state"): every haystack interaction in date order, then
// the question, after all history (paper §6.1).
//
// Gold hints never reach a memory system: has_answer flags are dropped from
// turns and every session id is replaced by its ordinal ("S3"), because ids
// leak evidence ("answer_…" marks evidence sessions, which the official
// src/retrieval/run_retrieval.py relies on) and filler origin ("sharegpt_…",
// "ultrachat_…"). The flags are kept where scoring needs them:
// Question.Evidence lists the interactions holding has_answer turns
// (abstention questions have none, so evidence recall skips them).
//
// Interactions are one user turn with the assistant turns after it, timed at
// their session's date (LongMemEval dates sessions, not turns). The question
// keeps question_date even where some haystack sessions are dated after it
// (a few dozen instances): the paper asks questions after the whole history,
// and dropping those sessions would delete evidence.
package longmemeval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Name is the benchmark name the loader registers under.
const Name = "longmemeval"

func init() {
	datasets.Register(Name, Load)
	datasets.RegisterStreamer(Name, Stream)
	// Hashes of the cleaned release as served by the Hugging Face dataset
	// xiaowu0162/longmemeval-cleaned (revision 98d7416c…), recorded by
	// several independent public benchmark harnesses that pin them. No
	// published hash was found for the original longmemeval_s.json or
	// longmemeval_m.json (Google Drive tarball / xiaowu0162/longmemeval), so
	// those are not recorded and inspect says so.
	for _, r := range []datasets.Release{
		{File: "longmemeval_oracle.json", SHA256: "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c", Bytes: 15388478, Source: "huggingface.co/datasets/xiaowu0162/longmemeval-cleaned"},
		{File: "longmemeval_s_cleaned.json", SHA256: "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442", Bytes: 277383467, Source: "huggingface.co/datasets/xiaowu0162/longmemeval-cleaned"},
		{File: "longmemeval_m_cleaned.json", SHA256: "9d79e5524794a2e6900a3aa9cb7d9152c5a3e8319c9a87c25494ba1eacee495f", Bytes: 2737100077, Source: "huggingface.co/datasets/xiaowu0162/longmemeval-cleaned"},
	} {
		datasets.RegisterRelease(Name, r)
	}
}

// The six question types (README.md, "question_type"). Abstention is not a
// type: it is marked by "_abs" in question_id (src/evaluation/evaluate_qa.py:
// abstention='_abs' in entry['question_id']).
var questionTypes = []string{
	"single-session-user", "single-session-assistant", "single-session-preference",
	"temporal-reasoning", "knowledge-update", "multi-session",
}

// Abstention is the pseudo-category that selects "_abs" questions in
// datasets.Options.Categories.
const Abstention = "abstention"

// dateLayout is LongMemEval's timestamp format for question_date and
// haystack_dates ("2023/05/30 (Tue) 23:40"). The weekday is not checked
// against the date.
const dateLayout = "2006/01/02 (Mon) 15:04"

type instance struct {
	QuestionID         string          `json:"question_id"`
	QuestionType       string          `json:"question_type"`
	Question           string          `json:"question"`
	Answer             json.RawMessage `json:"answer"`
	QuestionDate       string          `json:"question_date"`
	HaystackSessionIDs []string        `json:"haystack_session_ids"`
	HaystackDates      []string        `json:"haystack_dates"`
	HaystackSessions   [][]turn        `json:"haystack_sessions"`
	// answer_session_ids is not read: it is a gold hint, and has_answer
	// gives turn-level evidence.
}

type turn struct {
	Role string `json:"role"`
	// Content is a pointer so that null (or a missing field) is told
	// apart from an empty string: it is an error, not an empty turn.
	Content   *string `json:"content"`
	HasAnswer bool    `json:"has_answer"`
}

// Load reads a LongMemEval file into episodes, one per question.
// opt.Categories keeps question types (or "abstention"); empty keeps all.
func Load(ctx context.Context, path string, opt datasets.Options) ([]datasets.Episode, error) {
	var eps []datasets.Episode
	err := Stream(ctx, path, opt, func(ep datasets.Episode) error {
		eps = append(eps, ep)
		return nil
	})
	return eps, err
}

// Stream decodes the file one instance at a time and hands each episode to
// fn as soon as it is built, so a runner can replay LongMemEval_M without
// holding all 500 haystacks. opt.Progress receives bytes read.
func Stream(ctx context.Context, path string, opt datasets.Options, fn func(datasets.Episode) error) error {
	if path == "" {
		return fmt.Errorf("load %s: no file given: pass the official JSON file with --data (nothing is downloaded)", Name)
	}
	filter, err := loadkit.NewFilter(opt.Categories, nil, canonCategory)
	if err != nil {
		return fmt.Errorf("load %s %s: categories: %w", Name, path, err)
	}
	return loadkit.DecodeFile(Name, path, func(r io.Reader, size int64) error {
		return decode(ctx, r, size, filter, opt.Progress, fn)
	})
}

// decode streams instances from r; see Stream.
func decode(ctx context.Context, r io.Reader, size int64, filter loadkit.Filter, progress func(done, total int64), fn func(datasets.Episode) error) error {
	seen := map[string]int{}
	return loadkit.DecodeArray(ctx, r, size, progress, func(i int, dec *json.Decoder) error {
		var in instance
		if err := dec.Decode(&in); err != nil {
			return fmt.Errorf("%s: %w", where(i, in.QuestionID), loadkit.FieldError(err))
		}
		ep, err := build(in)
		if err != nil {
			return fmt.Errorf("%s: %w", where(i, in.QuestionID), err)
		}
		if j, dup := seen[in.QuestionID]; dup {
			return fmt.Errorf("%s: question_id: duplicate of instance %d", where(i, in.QuestionID), j)
		}
		seen[in.QuestionID] = i
		q := ep.Steps[len(ep.Steps)-1].Question
		cats := []string{q.Category}
		if q.Abstention {
			cats = append(cats, Abstention)
		}
		if !filter.Keep(cats...) {
			return nil
		}
		return fn(ep)
	})
}

func where(i int, id string) string { return loadkit.Where("instance", i, id) }

func canonCategory(s string) string {
	s = strings.ReplaceAll(s, "_", "-")
	if s == Abstention {
		return s
	}
	for _, t := range questionTypes {
		if s == t {
			return t
		}
	}
	return ""
}

// session is one haystack session with its parsed date; a stable sort keeps
// same-dated sessions (some _s instances repeat a timestamp) in file order.
type session struct {
	date  time.Time
	turns []turn
}

func build(in instance) (datasets.Episode, error) {
	if strings.TrimSpace(in.QuestionID) == "" {
		return datasets.Episode{}, fmt.Errorf("question_id: expected a non-empty string")
	}
	if canonCategory(in.QuestionType) != in.QuestionType || in.QuestionType == Abstention {
		return datasets.Episode{}, fmt.Errorf("question_type: expected one of %s, got %q", strings.Join(questionTypes, ", "), in.QuestionType)
	}
	if strings.TrimSpace(in.Question) == "" {
		return datasets.Episode{}, fmt.Errorf("question: expected a non-empty string")
	}
	gold, err := loadkit.AnswerText(in.Answer)
	if err != nil {
		return datasets.Episode{}, fmt.Errorf("answer: %w", err)
	}
	qtime, err := loadkit.ParseTime(in.QuestionDate, dateLayout)
	if err != nil {
		return datasets.Episode{}, fmt.Errorf("question_date: %w", err)
	}
	n := len(in.HaystackSessions)
	if len(in.HaystackDates) != n || len(in.HaystackSessionIDs) != n {
		return datasets.Episode{}, fmt.Errorf("haystack: expected haystack_session_ids, haystack_dates and haystack_sessions of equal length, got %d, %d and %d",
			len(in.HaystackSessionIDs), len(in.HaystackDates), n)
	}
	sessions := make([]session, n)
	for k := range in.HaystackSessions {
		d, err := loadkit.ParseTime(in.HaystackDates[k], dateLayout)
		if err != nil {
			return datasets.Episode{}, fmt.Errorf("haystack_dates[%d]: %w", k, err)
		}
		for j, t := range in.HaystackSessions[k] {
			if t.Role != dialog.RoleUser && t.Role != dialog.RoleAssistant {
				return datasets.Episode{}, fmt.Errorf("haystack_sessions[%d][%d].role: expected \"user\" or \"assistant\", got %q", k, j, t.Role)
			}
			if t.Content == nil {
				return datasets.Episode{}, fmt.Errorf("haystack_sessions[%d][%d].content: expected a string, got null or nothing", k, j)
			}
		}
		sessions[k] = session{date: d, turns: in.HaystackSessions[k]}
	}
	// The oracle file lists sessions unsorted (README.md: "not sorted for
	// longmemeval_oracle.json"), and some _s instances list dates out of
	// order too; replay must be chronological, so every file is sorted.
	sort.SliceStable(sessions, func(a, b int) bool { return sessions[a].date.Before(sessions[b].date) })

	ep := datasets.Episode{ID: in.QuestionID, Benchmark: Name}
	var evidence []string
	for k, s := range sessions {
		sid := fmt.Sprintf("S%d", k+1)
		roles := make([]string, len(s.turns))
		for j, t := range s.turns {
			roles[j] = t.Role
		}
		for _, g := range loadkit.Group(roles) {
			it := &dialog.Interaction{Session: sid, Time: s.date}
			hit := false
			for j := g[0]; j < g[1]; j++ {
				t := s.turns[j]
				it.Turns = append(it.Turns, dialog.Turn{ID: fmt.Sprintf("%s:%d", sid, j+1), Role: t.Role, Content: *t.Content})
				hit = hit || t.HasAnswer
			}
			it.ID = it.Turns[0].ID
			if hit {
				evidence = append(evidence, it.ID)
			}
			ep.Steps = append(ep.Steps, datasets.Step{Interaction: it})
		}
	}
	q := &datasets.Question{
		ID:         in.QuestionID,
		Text:       in.Question,
		Time:       qtime,
		Gold:       gold,
		Category:   in.QuestionType,
		Abstention: strings.Contains(in.QuestionID, "_abs"),
		Evidence:   evidence,
	}
	// Preference questions carry a rubric of the desired personalised
	// response in "answer" (evaluate_qa.py passes it as "Rubric").
	if in.QuestionType == "single-session-preference" {
		q.Rubric = []string{gold}
	}
	ep.Steps = append(ep.Steps, datasets.Step{Question: q})
	return ep, nil
}
