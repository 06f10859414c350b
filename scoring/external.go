package scoring

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/record"
)

// Scoring predictions made by any other system (`arbor score`), and adding
// judges to recorded runs without re-answering.

// Prediction is one line of a predictions file.
type Prediction struct {
	// QuestionID is arbor's question ID (datasets ID conventions).
	QuestionID string
	// IDs are the line's own id fields in their order, echoed into
	// scores.jsonl.
	IDs []IDField
	// Text is the predicted answer.
	Text string
	// Line is the 1-based line number in the file.
	Line int
}

// IDField is one id field of a prediction line, its JSON value kept as it
// was written.
type IDField struct {
	Key   string
	Value json.RawMessage
}

// predictionKeys are the fields accepted as the prediction text: arbor's
// own, LongMemEval's hypothesis files, BEAM's answer files and Mem0-style
// result files.
var predictionKeys = []string{"prediction", "hypothesis", "llm_response", "response"}

// ReadPredictions reads a predictions file: one JSON object per line with
// the question's id fields and its prediction. The id fields are, by
// benchmark: LoCoMo sample_id and qa_index (the question's index in the
// sample's qa list; "index" is accepted too); LongMemEval question_id;
// BEAM chat_id ("chat" accepted), category and index; BranchMemEval
// question_id. Any line may instead give arbor's question ID as "id".
// Errors name the file (name), line and field.
func ReadPredictions(r io.Reader, name, bench string) ([]Prediction, error) {
	var out []Prediction
	seen := map[string]int{}
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			p, perr := parsePrediction(b, bench)
			if perr != nil {
				return nil, fmt.Errorf("%s line %d: %w", name, line, perr)
			}
			if prev, dup := seen[p.QuestionID]; dup {
				return nil, fmt.Errorf("%s line %d: question %s already predicted on line %d", name, line, p.QuestionID, prev)
			}
			seen[p.QuestionID] = line
			p.Line = line
			out = append(out, p)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
	}
	return out, nil
}

func parsePrediction(b []byte, bench string) (Prediction, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Prediction{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var p Prediction
	found := false
	for _, k := range predictionKeys {
		if v, ok := m[k]; ok {
			if err := json.Unmarshal(v, &p.Text); err != nil {
				return Prediction{}, fmt.Errorf("field %q: want a string", k)
			}
			found = true
			break
		}
	}
	if !found {
		return Prediction{}, fmt.Errorf("no prediction field (want one of %s)", strings.Join(predictionKeys, ", "))
	}
	// field returns the first present key among names as text.
	field := func(names ...string) (string, error) {
		for _, n := range names {
			v, ok := m[n]
			if !ok {
				continue
			}
			p.IDs = append(p.IDs, IDField{n, v})
			s, err := rawText(v)
			if err != nil {
				return "", fmt.Errorf("field %q: %w", n, err)
			}
			return s, nil
		}
		return "", fmt.Errorf("missing field %q", names[0])
	}
	if _, ok := m["id"]; ok {
		id, err := field("id")
		p.QuestionID = id
		return p, err
	}
	switch bench {
	case "locomo":
		sid, err := field("sample_id")
		if err != nil {
			return p, err
		}
		idx, err := field("qa_index", "index")
		if err != nil {
			return p, err
		}
		if _, err := strconv.Atoi(idx); err != nil {
			return p, fmt.Errorf("field qa_index: want an integer, got %q", idx)
		}
		p.QuestionID = sid + ":" + idx
	case "longmemeval", "branchmemeval":
		id, err := field("question_id")
		if err != nil {
			return p, err
		}
		p.QuestionID = id
	case "beam":
		chat, err := field("chat_id", "chat")
		if err != nil {
			return p, err
		}
		cat, err := field("category")
		if err != nil {
			return p, err
		}
		idx, err := field("index")
		if err != nil {
			return p, err
		}
		if _, err := strconv.Atoi(idx); err != nil {
			return p, fmt.Errorf("field index: want an integer, got %q", idx)
		}
		p.QuestionID = chat + ":" + cat + ":" + idx
	default:
		return p, fmt.Errorf("unknown benchmark %q", bench)
	}
	return p, nil
}

// rawText renders a JSON string or number as text.
func rawText(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("want a string or a number, got %s", v)
}

// Scored is one question's prediction with its results, one per scorer.
type Scored struct {
	Question   *datasets.Question
	Prediction Prediction
	Results    []Result
}

// Coverage says how predictions and questions matched.
type Coverage struct {
	// Unmatched are prediction IDs that name no question in the data.
	Unmatched []string
	// Unanswered counts questions without a prediction (not scored).
	Unanswered int
}

// ScorePredictions scores every prediction whose question is in qs with
// every scorer, workers questions at a time (judge calls are I/O-bound).
// progress, when set, is called after each question, never concurrently.
// Results keep the predictions' order.
func ScorePredictions(ctx context.Context, qs []*datasets.Question, preds []Prediction, scorers []Scorer, workers int, progress func(done, total int)) ([]Scored, Coverage, error) {
	byID := make(map[string]*datasets.Question, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	var cov Coverage
	var todo []Scored
	answered := map[string]bool{}
	for _, p := range preds {
		q, ok := byID[p.QuestionID]
		if !ok {
			cov.Unmatched = append(cov.Unmatched, p.QuestionID)
			continue
		}
		answered[q.ID] = true
		todo = append(todo, Scored{Question: q, Prediction: p})
	}
	cov.Unanswered = len(qs) - len(answered)
	if len(todo) == 0 && len(preds) > 0 {
		ex := make([]string, 0, 3)
		for _, q := range qs[:min(3, len(qs))] {
			ex = append(ex, q.ID)
		}
		return nil, cov, fmt.Errorf("no prediction names a question of the data (first prediction id %q; data ids look like %s)", preds[0].QuestionID, strings.Join(ex, ", "))
	}
	if workers < 1 {
		workers = 1
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	report := serialProgress(progress, len(todo))
	for i := range todo {
		g.Go(func() error {
			s := &todo[i]
			s.Results = make([]Result, len(scorers))
			for k, sc := range scorers {
				r, err := sc.Score(gctx, s.Question, s.Prediction.Text)
				if err != nil {
					return fmt.Errorf("line %d (%s), scorer %s: %w", s.Prediction.Line, s.Question.ID, sc.Name(), err)
				}
				s.Results[k] = r
			}
			report()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, cov, err
	}
	return todo, cov, nil
}

// serialProgress counts finished questions and calls progress (if set) one
// call at a time, in order, whatever goroutine finished.
func serialProgress(progress func(done, total int), total int) func() {
	var mu sync.Mutex
	done := 0
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if progress != nil {
			progress(done, total)
		}
	}
}

// ToSamples turns scored predictions into sample records (system name
// given), so that the same tables serve recorded runs and external
// predictions. The first scorer is the primary one.
func ToSamples(bench, system string, scored []Scored, scorers []Scorer) []record.Sample {
	out := make([]record.Sample, 0, len(scored))
	for _, s := range scored {
		q := s.Question
		labels := q.Labels
		if q.Abstention {
			labels = make(map[string]string, len(q.Labels)+1)
			for k, v := range q.Labels {
				labels[k] = v
			}
			labels["abstention"] = "true"
		}
		smp := record.Sample{
			Benchmark: bench, Episode: episodeOf(bench, q.ID), Question: q.ID, System: system,
			Category: q.Category, Labels: labels, Prediction: s.Prediction.Text, Gold: q.Gold,
			Confounder: q.Confounder, Scores: map[string]record.ScoreRecord{}, EvidenceRecall: -1,
		}
		for k, sc := range scorers {
			if k == 0 {
				smp.Primary = sc.Name()
			}
			smp.Scores[sc.Name()] = ToRecord(s.Results[k], sc.Heuristic())
			if sc.Heuristic() && !hasString(smp.Heuristic, "judge") {
				smp.Heuristic = append(smp.Heuristic, "judge")
			}
		}
		out = append(out, smp)
	}
	return out
}

// ToRecord is the recorded form of a scorer's result.
func ToRecord(r Result, heuristic bool) record.ScoreRecord {
	return record.ScoreRecord{Score: r.Score, Outcome: r.Outcome, Parts: r.Parts, Raw: r.Raw, Heuristic: heuristic, Unparsed: r.Unparsed}
}

func hasString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// episodeOf recovers the episode ID from a question ID by the datasets
// conventions: LoCoMo "<sample>:<i>" and BEAM "<chat>:<category>:<i>".
func episodeOf(bench, qid string) string {
	switch bench {
	case "locomo":
		if i := strings.LastIndexByte(qid, ':'); i > 0 {
			return qid[:i]
		}
	case "beam":
		parts := strings.Split(qid, ":")
		if len(parts) >= 3 {
			return strings.Join(parts[:len(parts)-2], ":")
		}
	}
	return qid
}

// WriteScores writes one JSON line per scored question: its id fields as
// given, arbor's question ID, category, the primary score and every
// scorer's result.
func WriteScores(w io.Writer, scored []Scored, scorers []Scorer) error {
	bw := bufio.NewWriter(w)
	for _, s := range scored {
		var b bytes.Buffer
		b.WriteByte('{')
		for _, f := range s.Prediction.IDs {
			k, _ := json.Marshal(f.Key)
			b.Write(k)
			b.WriteByte(':')
			b.Write(f.Value)
			b.WriteByte(',')
		}
		rest := struct {
			Question string                        `json:"question"`
			Category string                        `json:"category"`
			Score    float64                       `json:"score"`
			Scores   map[string]record.ScoreRecord `json:"scores"`
		}{Question: s.Question.ID, Category: s.Question.Category, Scores: map[string]record.ScoreRecord{}}
		for k, sc := range scorers {
			if k == 0 {
				rest.Score = s.Results[k].Score
			}
			rr := ToRecord(s.Results[k], sc.Heuristic())
			rr.Raw = "" // replies stay in samples, not in the score summary
			rest.Scores[sc.Name()] = rr
		}
		tail, err := json.Marshal(rest)
		if err != nil {
			return err
		}
		b.Write(tail[1:]) // continue the object after the id fields
		b.WriteByte('\n')
		if _, err := bw.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Rescore adds the results of scorers to recorded samples that lack them,
// without answering again: a judge added to an existing run. Samples of
// other benchmarks, samples whose answer failed and samples whose question
// is not in qs are left alone; the number of samples changed is returned.
// The primary scorer of each sample is not changed.
func Rescore(ctx context.Context, samples []record.Sample, bench string, qs []*datasets.Question, scorers []Scorer, workers int, progress func(done, total int)) (int, error) {
	byID := make(map[string]*datasets.Question, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	var idx []int
	for i, s := range samples {
		if s.Benchmark != bench || s.Error != "" || byID[s.Question] == nil {
			continue
		}
		for _, sc := range scorers {
			if _, ok := s.Scores[sc.Name()]; !ok {
				idx = append(idx, i)
				break
			}
		}
	}
	if workers < 1 {
		workers = 1
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	report := serialProgress(progress, len(idx))
	for _, i := range idx {
		g.Go(func() error {
			s := &samples[i]
			q := byID[s.Question]
			add := map[string]record.ScoreRecord{}
			for _, sc := range scorers {
				if _, ok := s.Scores[sc.Name()]; ok {
					continue
				}
				r, err := sc.Score(gctx, q, s.Prediction)
				if err != nil {
					return fmt.Errorf("sample %s/%s/%s: scorer %s: %w", s.System, s.Episode, s.Question, sc.Name(), err)
				}
				add[sc.Name()] = ToRecord(r, sc.Heuristic())
				if sc.Heuristic() && !hasString(s.Heuristic, "judge") {
					s.Heuristic = append(s.Heuristic, "judge")
				}
			}
			if s.Scores == nil {
				s.Scores = map[string]record.ScoreRecord{}
			}
			for k, v := range add {
				s.Scores[k] = v
			}
			report()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return len(idx), nil
}

// ScorerNames lists the scorer names present in samples: each sample's
// primary first, then the others in name order.
func ScorerNames(samples []record.Sample) []string {
	primary := map[string]bool{}
	var prim []string
	others := map[string]bool{}
	for _, s := range samples {
		if s.Primary != "" && !primary[s.Primary] {
			primary[s.Primary] = true
			prim = append(prim, s.Primary)
		}
		for k := range s.Scores {
			others[k] = true
		}
	}
	var rest []string
	for k := range others {
		if !primary[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(prim, rest...)
}
