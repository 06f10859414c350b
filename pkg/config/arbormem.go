package config

import "strings"

// ArborMem holds ArborMem's reference hyperparameters. Every default is the
// paper's value; the comment names the table it comes from.
type ArborMem struct {
	// SemanticCandidates: "Up to 20 interaction-state nodes" (Table
	// "Reference implementation settings", state recall).
	SemanticCandidates int `mapstructure:"semantic_candidates" yaml:"semantic_candidates"`
	// TopicCandidates: "Up to 12 additional candidates per detected topic
	// anchor" (same table).
	TopicCandidates int `mapstructure:"topic_candidates" yaml:"topic_candidates"`
	// KeywordCandidates bounds keyword recall; the paper gives no number, we
	// use the semantic bound.
	KeywordCandidates int `mapstructure:"keyword_candidates" yaml:"keyword_candidates"`
	// Tau: "The best candidate must strictly exceed τ = 8.0" (same table).
	Tau float64 `mapstructure:"tau" yaml:"tau"`
	// KeywordFirst, KeywordNext, KeywordMaxDF: "1.0 for the first informative
	// overlap and 0.5 for each additional overlap; terms appearing in more
	// than 40% of nodes are ignored" (same table).
	KeywordFirst float64 `mapstructure:"keyword_first" yaml:"keyword_first"`
	KeywordNext  float64 `mapstructure:"keyword_next" yaml:"keyword_next"`
	KeywordMaxDF float64 `mapstructure:"keyword_max_df" yaml:"keyword_max_df"`
	// RecencyMax: "Bounded auxiliary bonus with a maximum value of 1.0".
	RecencyMax float64 `mapstructure:"recency_max" yaml:"recency_max"`
	// RecencyScale is the e-folding distance, in committed interactions, of
	// s_rec = recency_max · exp(−Δ/recency_scale), Δ = interactions committed
	// after the candidate. The paper bounds the bonus but gives no decay
	// (ours: 8 prefers the newest node of a trajectory left a few turns ago
	// without rewarding staleness).
	RecencyScale float64 `mapstructure:"recency_scale" yaml:"recency_scale"`
	// TopicWeight, TopicMatchMin, TopicPenalty: "8.0 × topic-match score for
	// matches above 0.5, and −6.0 otherwise" (same table).
	TopicWeight   float64 `mapstructure:"topic_weight" yaml:"topic_weight"`
	TopicMatchMin float64 `mapstructure:"topic_match_min" yaml:"topic_match_min"`
	TopicPenalty  float64 `mapstructure:"topic_penalty" yaml:"topic_penalty"`
	// CEScore says what s_ce is: "logit" (the cross-encoder's raw logit, the
	// scale τ = 8.0 and the topic constants are stated on; TEI is asked for
	// raw scores, a probability is inverted through the logistic function),
	// "scaled" (ce_scale × probability), or "auto": logit for a model
	// reranker, scaled for the offline lexical reranker, whose score is not
	// a logit. See docs/FIDELITY.md.
	CEScore string `mapstructure:"ce_score" yaml:"ce_score"`
	// CEScale multiplies the reranker's probability when ce_score is scaled.
	CEScale float64 `mapstructure:"ce_scale" yaml:"ce_scale"`
	// RerankInstruction says how the paper's fixed reranker instruction
	// (appendix D, _RERANKER_PROMPT) reaches a plain cross-encoder: "prefix"
	// (prepended to the query A), "off", or "auto" (prefix for a model
	// reranker, off for the offline lexical one).
	RerankInstruction string `mapstructure:"rerank_instruction" yaml:"rerank_instruction"`
	// Routing selects localization rules: "paper" (the cascade of §4.2 only),
	// "heuristic" (the cascade plus the offline routing rules: implicit
	// continuation, return and new-topic cues, a guard on the continuation
	// cue, resuming a branch at its latest node), or "auto" (heuristic exactly
	// when the memory operations are rule-based).
	Routing string `mapstructure:"routing" yaml:"routing"`
	// RawTail: "Four interaction-state nodes" (branch context).
	RawTail int `mapstructure:"raw_tail" yaml:"raw_tail"`
	// BranchBudget: "16,384 tokens" (maximum branch budget).
	BranchBudget int `mapstructure:"branch_budget" yaml:"branch_budget"`
	// MaxFacts, FactMinSim: "Up to 10 facts with a minimum semantic
	// similarity of 0.4" (reusable evidence).
	MaxFacts   int     `mapstructure:"max_facts" yaml:"max_facts"`
	FactMinSim float64 `mapstructure:"fact_min_sim" yaml:"fact_min_sim"`
	// SupplementalBudget: "Supported by the architecture but assigned zero
	// budget in the reported experiments."
	SupplementalBudget int `mapstructure:"supplemental_budget" yaml:"supplemental_budget"`
	// SupplementalFill (offline profile): a question that does not continue
	// the conversation (not asked within the hour after the last turn, as
	// LoCoMo's, and routed by no conversational cue) reads supplemental turns, selected by term and speaker matching,
	// first and up to the whole budget; the trajectory, facts and records
	// get what they leave. "on", "off", or "auto" (on exactly when the
	// memory operations are rule-based). The paper's runs give the channel
	// zero budget, which the model path keeps.
	SupplementalFill string `mapstructure:"supplemental_fill" yaml:"supplemental_fill"`
	// ShiftMarkers (offline profile, with the offline routing): an explicit
	// change of subject ("different topic", "switching gears", "on another
	// note") leaves the active state for the trajectory the input's content
	// words match best, or a new root; a soft one ("also", "oh, and", "by
	// the way") does so only before words the active trajectory does not
	// share. "on", "off", or "auto" (on exactly when the memory operations
	// are rule-based).
	ShiftMarkers string `mapstructure:"shift_markers" yaml:"shift_markers"`
	// ContentReturns (offline profile, with the offline routing): an input
	// that a continuation cue or the implicit continuation would attach to
	// the active state goes instead to the latest node of another
	// trajectory whose content words (entities, terms, values said there)
	// it matches far better. "on", "off" or "auto" as ShiftMarkers.
	ContentReturns string `mapstructure:"content_returns" yaml:"content_returns"`
	// LabelReturns (offline profile, with the offline routing): a label
	// fronted at the start of an input ("ok, tax again.", "biscuit
	// update:", "update on the bread:") whose content words another
	// trajectory has said, and the active one has not, is a return cue to
	// that trajectory. "on", "off" or "auto" as ShiftMarkers.
	LabelReturns string `mapstructure:"label_returns" yaml:"label_returns"`
	// NovelShift (offline profile, with the offline routing): an input of
	// many content words (12) none of which the active trajectory has said
	// leaves it without a marker ("ok work brain. we're raising a seed
	// round…"), for a trajectory it matches far better or a new root. "on",
	// "off" or "auto" as ShiftMarkers.
	NovelShift string `mapstructure:"novel_shift" yaml:"novel_shift"`
	// SupplementalExcerpt (offline profile, with supplemental_fill): a
	// supplemental turn first enters as its sentences that hold a question
	// term, and the budget left restores whole turns; false quotes whole
	// turns only (fewer turns under a tight budget, more of each).
	SupplementalExcerpt bool `mapstructure:"supplemental_excerpt" yaml:"supplemental_excerpt"`
	// SupplementalWholeShare (offline profile, with supplemental_excerpt):
	// the best-ranked supplemental turns enter whole, not as excerpts,
	// while they fit in this share of the budget; 0 excerpts every turn
	// that has a non-matching sentence.
	SupplementalWholeShare float64 `mapstructure:"supplemental_whole_share" yaml:"supplemental_whole_share"`
	// SupplementalWindowShare (offline profile, with supplemental_excerpt):
	// the best-ranked supplemental turns that do not enter whole enter, while
	// they fit in this share of the budget, as a window on their
	// best-matching sentence (the one whose question terms weigh most, with
	// the sentence before and after it) instead of every sentence that
	// holds a question term: the answer is often the sentence beside the one
	// that repeats the question's words ("Last Fri I took my kids to a
	// pottery workshop. We all made our own pots!"). 0 turns it off.
	SupplementalWindowShare float64 `mapstructure:"supplemental_window_share" yaml:"supplemental_window_share"`
	// SupplementalDayDates (offline profile, with supplemental_fill): the
	// supplemental turns of one session are headed by its day
	// ([2023-05-08]) rather than its day and time of day, which no question
	// of the benchmarks asks about and which costs tokens once per session.
	SupplementalDayDates bool `mapstructure:"supplemental_day_dates" yaml:"supplemental_day_dates"`
	// SupplementalReplies (offline profile, with supplemental_fill): a
	// matched turn brings the next turn, the other speaker's reply, which
	// in conversation often repeats none of the question's words.
	SupplementalReplies bool `mapstructure:"supplemental_replies" yaml:"supplemental_replies"`
	// SupplementalDates (offline profile, with supplemental_fill): the
	// turns of a date the question names ("in May 2022", "on 3 June")
	// rank higher, and a named speaker's turns on that date are
	// candidates though they hold no question term.
	SupplementalDates bool `mapstructure:"supplemental_dates" yaml:"supplemental_dates"`
	// EvidenceReserve is the share of the answer-time budget kept for
	// cross-branch evidence before the trajectory is packed. The paper packs
	// the trajectory first and retrieves evidence "under the remaining read
	// budget" (§4.3, appendix A), so the default is 0; 0.5 reproduces
	// arbor's earlier half-and-half split.
	EvidenceReserve float64 `mapstructure:"evidence_reserve" yaml:"evidence_reserve"`
	// RecordCandidates bounds how many structured records semantic recall
	// proposes per query, and MaxRecordLines the lines of one structured
	// evidence block (ours: the paper gives no numbers).
	RecordCandidates int `mapstructure:"record_candidates" yaml:"record_candidates"`
	MaxRecordLines   int `mapstructure:"max_record_lines" yaml:"max_record_lines"`
	// MaxFactsPerTurn, MaxEntities and PathSummaryChars cap what one memory
	// operation keeps (ours: the paper states no number; docs/FIDELITY.md):
	// facts from one interaction (atomic_fact_miner), entities of a node
	// (node_metadata), characters of a path summary (path_evolution). They
	// bound a runaway reply on the model path and the rules' output offline
	// (whose node metadata lists at most 12 entities of its own, so a
	// max_entities above 12 changes nothing there); 0 takes the default
	// (12, 16, 480).
	MaxFactsPerTurn  int `mapstructure:"max_facts_per_turn" yaml:"max_facts_per_turn"`
	MaxEntities      int `mapstructure:"max_entities" yaml:"max_entities"`
	PathSummaryChars int `mapstructure:"path_summary_chars" yaml:"path_summary_chars"`
	// EmbedMaxChars clips texts sent to the embedder (node interactions,
	// fact keys) to this many characters, so that no request exceeds an
	// embedding model's input limit (BGE-M3: 8,192 tokens); 0 = no clip.
	EmbedMaxChars int `mapstructure:"embed_max_chars" yaml:"embed_max_chars"`
	// CountSourceLines, TopicSlotFacts and BridgeFacts bound the derived
	// blocks the paper names without sizing (appendix D): source turns of
	// [CountSourceEvidence], facts of [TopicSlotEvidence], facts per side of
	// [BridgeEvidence] (ours).
	CountSourceLines int `mapstructure:"count_source_lines" yaml:"count_source_lines"`
	TopicSlotFacts   int `mapstructure:"topic_slot_facts" yaml:"topic_slot_facts"`
	BridgeFacts      int `mapstructure:"bridge_facts" yaml:"bridge_facts"`
	// AnchorFactMinSim is the similarity floor of the facts in
	// [TopicSlotEvidence] and [BridgeEvidence]: cosine between the fact key
	// and the question (0: none, only a shared question term). AnchorTrigger
	// picks the question anchors that fill the two blocks: "topic" (every
	// anchor but a possessive whose owner is a speaker of the conversation,
	// "Caroline's painting" asked of Caroline's conversation), "anchor" (any
	// anchor naming a known trajectory: possessive, quoted, named or "back
	// to …"; before issue 30), "explicit" (quoted and "back to …" only) or
	// "off".
	// The paper names the blocks only (P:1903-1907); docs/FIDELITY.md.
	AnchorFactMinSim float64 `mapstructure:"anchor_fact_min_sim" yaml:"anchor_fact_min_sim"`
	AnchorTrigger    string  `mapstructure:"anchor_trigger" yaml:"anchor_trigger"`
	// MemoryOpMaxTokens bounds generation of memory-operation calls (the
	// efficiency setup uses a 4K memory-operation budget, appendix C.4).
	MemoryOpMaxTokens int `mapstructure:"memory_op_max_tokens" yaml:"memory_op_max_tokens"`
	// Ablation switches (appendix C.3); all true in the reference configuration.
	Localization         bool `mapstructure:"localization" yaml:"localization"`
	KeywordRouting       bool `mapstructure:"keyword_routing" yaml:"keyword_routing"`
	AtomicFacts          bool `mapstructure:"atomic_facts" yaml:"atomic_facts"`
	StructuredExtraction bool `mapstructure:"structured_extraction" yaml:"structured_extraction"`
	StructuredEvidence   bool `mapstructure:"structured_evidence" yaml:"structured_evidence"`
	// Extractors picks the implementation of model-backed memory operations:
	// "auto" (chat model when the chat role has endpoints, else heuristic),
	// "chat" or "heuristic".
	Extractors string `mapstructure:"extractors" yaml:"extractors"`
	// Prefetch lets a runner start the next interaction's first commit
	// round (extractors and embeddings, which need only the interaction)
	// while the current one commits, with model-backed operations only.
	// Results are unchanged; ingest per turn drops to the calls that need
	// the committed state (ours; the paper does not describe its pipeline).
	// A throughput option for accuracy runs: only a replay that knows the
	// next turn can prefetch, and no baseline gets such pipelining, so the
	// efficiency run switches it off (Config.Sequential).
	Prefetch bool `mapstructure:"prefetch" yaml:"prefetch"`
	// VectorStorage is how the dense channels (nodes, records, and facts
	// unless FactVectorStorage says otherwise) keep model embeddings:
	// "float32" (lossless), "int8" (a quarter of the memory, one scale
	// per row; cosines move by about 0.001), "int4" (an eighth; cosines
	// move by about 0.004) or "auto" (int8 with model memory operations,
	// float32 with rule-based ones). The offline embedder's sparse
	// vectors are stored losslessly either way (ours; the paper does not
	// describe its storage).
	VectorStorage string `mapstructure:"vector_storage" yaml:"vector_storage"`
	// FactVectorStorage is how the fact channel keeps model embeddings,
	// with VectorStorage's values. "auto" follows VectorStorage when that
	// is named, and is otherwise int4 with model memory operations (nodes
	// and records then int8) and float32 with rule-based ones: facts are
	// four in five of an episode's vectors, and a fact's vector only ranks
	// it among the fact evidence lines, while node vectors localize
	// (docs/FIDELITY.md; ours, the paper does not describe its storage).
	FactVectorStorage string `mapstructure:"fact_vector_storage" yaml:"fact_vector_storage"`
	// VectorSearch is how the dense channels are searched: "exact" (every
	// row scored; the paper's numbers), "ivf" (rows grouped by about √n
	// k-means centroids, IVFProbe nearest groups scored: cost grows as √n,
	// recall@k below 1) or "binary" (every row ranked by the Hamming
	// distance of its sign bits to the query's, the VectorRerank·k nearest
	// scored as exact search scores them; recall@k below 1). Memories
	// under 1,024 vectors are searched exactly either way (ours).
	VectorSearch string `mapstructure:"vector_search" yaml:"vector_search"`
	IVFProbe     int    `mapstructure:"ivf_probe" yaml:"ivf_probe"`
	VectorRerank int    `mapstructure:"vector_rerank" yaml:"vector_rerank"`
}

// DefaultArborMem is the paper's reference configuration.
func DefaultArborMem() ArborMem {
	return ArborMem{
		SemanticCandidates: 20, TopicCandidates: 12, KeywordCandidates: 20,
		Tau: 8.0, KeywordFirst: 1.0, KeywordNext: 0.5, KeywordMaxDF: 0.4,
		RecencyMax: 1.0, RecencyScale: 8, TopicWeight: 8.0, TopicMatchMin: 0.5, TopicPenalty: -6.0,
		CEScore: "auto", CEScale: 10, RerankInstruction: "auto", Routing: "auto",
		RawTail: 4, BranchBudget: 16384, MaxFacts: 10, FactMinSim: 0.4,
		SupplementalBudget: 0, SupplementalFill: "auto", ShiftMarkers: "auto", ContentReturns: "auto", LabelReturns: "auto", NovelShift: "auto", SupplementalExcerpt: true, SupplementalWholeShare: 0, SupplementalWindowShare: 0.2, SupplementalDayDates: true, SupplementalReplies: true, SupplementalDates: true, EvidenceReserve: 0, RecordCandidates: 60, MaxRecordLines: 8, MaxFactsPerTurn: 12, MaxEntities: 16, PathSummaryChars: 480, EmbedMaxChars: 12000, MemoryOpMaxTokens: 4096,
		CountSourceLines: 8, TopicSlotFacts: 6, BridgeFacts: 3, AnchorTrigger: "topic",
		Localization: true, KeywordRouting: true, AtomicFacts: true,
		StructuredExtraction: true, StructuredEvidence: true, Extractors: "auto", Prefetch: true,
		VectorStorage: "auto", FactVectorStorage: "auto", VectorSearch: "exact", IVFProbe: 32, VectorRerank: 10,
	}
}

// Baselines holds the native baselines' settings (paper appendix C.2).
type Baselines struct {
	// RecentTurns caps the recent baseline at the latest interactions on
	// every benchmark before packing (appendix C.2: "Recent retains only the
	// latest portion of the conversation ... For BranchMemEval, it considers
	// up to the most recent 32 turns"); 32 is the only figure the paper gives.
	RecentTurns int `mapstructure:"recent_turns" yaml:"recent_turns"`
	// RecentTurnsByBenchmark overrides RecentTurns for one benchmark
	// ("locomo: 64"); a benchmark not named takes RecentTurns.
	RecentTurnsByBenchmark map[string]int `mapstructure:"recent_turns_by_benchmark" yaml:"recent_turns_by_benchmark"`
	// BM25Units: "Up to 50 retrieved units are considered before final packing".
	BM25Units int `mapstructure:"bm25_units" yaml:"bm25_units"`
	// BM25ChunksBEAM: "The BEAM adapter ... retrieves up to 32 chunks".
	BM25ChunksBEAM int `mapstructure:"bm25_chunks_beam" yaml:"bm25_chunks_beam"`
	// SummaryEvery: "During BranchMemEval replay, the summary is updated every
	// eight interactions."
	SummaryEvery int `mapstructure:"summary_every" yaml:"summary_every"`
	// Summaries picks "auto", "chat" or "heuristic" for the summary baseline.
	Summaries string `mapstructure:"summaries" yaml:"summaries"`
	// SummaryRawTail shows the interactions no summary covers yet raw after
	// the summaries. Off by default: the paper's bundle holds summaries only
	// (appendix C.2), and every session, the last included, is summarised
	// before its questions are asked.
	SummaryRawTail bool `mapstructure:"summary_raw_tail" yaml:"summary_raw_tail"`
}

// RecentTurnsFor is the recent baseline's cap on benchmark: its override
// when one is set, RecentTurns otherwise.
func (b Baselines) RecentTurnsFor(benchmark string) int {
	if n, ok := b.RecentTurnsByBenchmark[strings.ToLower(strings.TrimSpace(benchmark))]; ok {
		return n
	}
	return b.RecentTurns
}

// DefaultBaselines is the paper's baseline configuration.
func DefaultBaselines() Baselines {
	return Baselines{RecentTurns: 32, RecentTurnsByBenchmark: map[string]int{}, BM25Units: 50, BM25ChunksBEAM: 32, SummaryEvery: 8, Summaries: "auto"}
}
