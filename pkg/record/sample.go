// Package record keeps a run's append-only sample log (samples.jsonl) and its
// manifest, and resumes a run by the keys already recorded.
package record

import "strconv"

// Sample is one answered question: one line of samples.jsonl.
type Sample struct {
	// A sample is unique by (Benchmark, Episode, Question, System, Variant, Budget).
	Benchmark string `json:"benchmark"`
	Episode   string `json:"episode"`
	Question  string `json:"question"`
	System    string `json:"system"`
	// Variant is the ablation variant ("" for the reference configuration).
	Variant string `json:"variant,omitempty"`
	Budget  int    `json:"budget"`

	// Category is the question's type/category/dimension; Labels as in
	// datasets.Question (BranchMemEval family, LoCoMo category name).
	Category string            `json:"category"`
	Labels   map[string]string `json:"labels,omitempty"`

	Prediction string `json:"prediction"`
	Gold       string `json:"gold"`
	Confounder string `json:"confounder,omitempty"`

	// Scores maps scorer name to its result; the first scorer configured is
	// the primary one (Primary).
	Primary string                 `json:"primary"`
	Scores  map[string]ScoreRecord `json:"scores"`

	// EvidenceTokens is the bundle's token count; EvidenceRecall its recall
	// of the gold evidence (-1 when undefined); ConfounderInBundle is set for
	// BranchMemEval.
	EvidenceTokens int     `json:"evidence_tokens"`
	EvidenceRecall float64 `json:"evidence_recall"`
	// AnswerInBundle is answer-in-bundle recall (1 or 0): the gold answer,
	// normalised as the benchmark's scorer does, appears in the bundle's
	// text. nil where undefined, and in samples recorded before it existed
	// (tables then fall back to EvidenceRecall).
	AnswerInBundle     *float64 `json:"answer_in_bundle,omitempty"`
	ConfounderInBundle *bool    `json:"confounder_in_bundle,omitempty"`
	// Channels is the token count each bundle channel filled.
	Channels map[string]int `json:"channels,omitempty"`

	// QuestionParentInBranch is set for localizing systems on BranchMemEval:
	// whether the chosen parent lies in the question's latent branch.
	QuestionParentInBranch *bool `json:"question_parent_in_branch,omitempty"`

	Latency Latency          `json:"latency"`
	Calls   map[string]Calls `json:"calls,omitempty"` // by role: chat, judge, embed, rerank

	// Judge is the model that judged the primary score (the judge role's
	// model), empty when the protocol is rule-based (BranchMemEval, LoCoMo
	// F1) or the judge lexical; table captions name it, so that columns
	// judged by different models are never compared unawares (P:668, P:1469).
	Judge string `json:"judge,omitempty"`

	// Heuristic lists the offline stand-ins that produced this sample
	// ("answerer", "memory-ops", "judge"), for table captions.
	Heuristic []string `json:"heuristic,omitempty"`
	Error     string   `json:"error,omitempty"`
	// Fingerprint is the config fingerprint of the run that made this
	// sample (Manifest.Fingerprint), so that a run resumed under another
	// config (--force) still says which config made each sample.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// ScoreRecord is one scorer's verdict.
type ScoreRecord struct {
	Score     float64   `json:"score"`
	Outcome   string    `json:"outcome,omitempty"`
	Parts     []float64 `json:"parts,omitempty"`
	Raw       string    `json:"raw,omitempty"`
	Heuristic bool      `json:"heuristic,omitempty"`
	// Unparsed counts the judge replies behind this verdict that gave no
	// verdict where the protocol asks for one (scored 0).
	Unparsed int `json:"unparsed,omitempty"`
}

// Latency holds the timings of one sample, in seconds.
type Latency struct {
	// IngestPerInteraction is the mean commit time of the interactions
	// committed before this question in the episode.
	IngestPerInteraction float64 `json:"ingest_per_interaction"`
	Ingested             int     `json:"ingested"`
	// QueryPrep is recall plus rendering (paper §6.4: "memory retrieval,
	// state localization when applicable, and evidence serialization").
	QueryPrep float64 `json:"query_prep"`
	TTFT      float64 `json:"ttft"`
	// Answer is the full answer call; FullQuery = QueryPrep + Answer.
	Answer    float64 `json:"answer"`
	FullQuery float64 `json:"full_query"`
}

// Calls counts model calls and tokens for one role.
type Calls struct {
	Count            int `json:"count"`
	Errors           int `json:"errors,omitempty"`
	CacheHits        int `json:"cache_hits,omitempty"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Ingest counts the calls made while committing (vs. answering).
	IngestCount            int `json:"ingest_count,omitempty"`
	IngestPromptTokens     int `json:"ingest_prompt_tokens,omitempty"`
	IngestCompletionTokens int `json:"ingest_completion_tokens,omitempty"`
}

// Key identifies a sample for resume and merge.
func (s Sample) Key() string {
	return s.Benchmark + "\x1f" + s.Episode + "\x1f" + s.Question + "\x1f" + s.System + "\x1f" + s.Variant + "\x1f" + itoa(s.Budget)
}

// PrimaryScore is the primary scorer's score, 0 when it is missing.
func (s Sample) PrimaryScore() float64 {
	if r, ok := s.Scores[s.Primary]; ok {
		return r.Score
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }
