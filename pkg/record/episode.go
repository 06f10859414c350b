package record

// EpisodeStat is what a runner records once per replayed episode and system:
// the commit side of an episode, which no single question's Sample can hold.
// Aggregation uses it for ingest cost per interaction (paper §6.4, Table
// "efficiency") and for commit-side localization accuracy on BranchMemEval
// (DESIGN.md, "Measuring memory without a chat model").
type EpisodeStat struct {
	// An EpisodeStat is unique by (Benchmark, Episode, System, Variant).
	Benchmark string `json:"benchmark"`
	Episode   string `json:"episode"`
	System    string `json:"system"`
	Variant   string `json:"variant,omitempty"`

	// Committed counts the interactions committed in the episode (canonical
	// question turns included, paper §5 "Online protocol").
	Committed int `json:"committed"`

	// Localizes is set when the system places each interaction in a forest
	// (ArborMem) and the episode has latent branch labels; the placement
	// counts below mean nothing otherwise.
	Localizes bool `json:"localizes,omitempty"`
	// PlacedInBranch counts committed interactions placed consistently with
	// their latent branch: attached under a node of the same latent branch,
	// or started as a new root when the interaction opens its latent branch
	// (is the first interaction of it). Denominator: Committed.
	PlacedInBranch int `json:"placed_in_branch,omitempty"`
	// Opens counts committed interactions that open a latent branch.
	Opens int `json:"opens,omitempty"`
	// NewRoots counts committed interactions the system started as a new root.
	NewRoots int `json:"new_roots,omitempty"`
	// OpenedCorrectly counts committed interactions whose root decision
	// matched the latent labels: a new root exactly when the interaction
	// opens a latent branch, an attachment otherwise. It is counted over all
	// committed interactions (denominator Committed), independently of
	// PlacedInBranch: an attachment to the wrong branch still counts here as
	// a correct "no new root" decision.
	OpenedCorrectly int `json:"opened_correctly,omitempty"`

	// IngestSeconds is the wall time spent in Commit over the episode.
	IngestSeconds float64 `json:"ingest_seconds"`
	// Calls counts the model calls made while committing, by role (chat,
	// judge, embed, rerank); Count and the token fields hold the ingest calls.
	Calls map[string]Calls `json:"calls,omitempty"`

	// Heuristic lists the offline stand-ins used while committing
	// ("memory-ops"), for table captions.
	Heuristic []string `json:"heuristic,omitempty"`
	// Degraded counts what went wrong but was survived while committing;
	// nil when nothing did.
	Degraded *Degraded `json:"degraded,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Degraded counts memory operations that did not go as the model-backed
// path intends: a run whose memory silently fell back to rules, or whose
// replies needed repair, must say so in its tables.
type Degraded struct {
	// Fallbacks counts memory operations answered by the rule-based
	// implementation because the model call failed or its reply could not
	// be parsed (ModelErrors + BadReplies of those operations).
	Fallbacks int `json:"fallbacks,omitempty"`
	// ModelErrors counts failed model calls (transport, server) of memory
	// operations and indexing (embed, rerank).
	ModelErrors int `json:"model_errors,omitempty"`
	// BadReplies counts replies that could not be parsed even after the
	// repair retry.
	BadReplies int `json:"bad_replies,omitempty"`
	// Repaired counts replies that parsed only after the repair retry.
	Repaired int `json:"repaired,omitempty"`
	// IngestErrors counts interactions whose commit returned an error
	// (stored with degraded indexing, or not stored).
	IngestErrors int `json:"ingest_errors,omitempty"`
}

// Any reports whether any count is above zero.
func (d *Degraded) Any() bool {
	return d != nil && (d.Fallbacks > 0 || d.ModelErrors > 0 || d.BadReplies > 0 || d.Repaired > 0 || d.IngestErrors > 0)
}

// Add adds o's counts to d.
func (d *Degraded) Add(o *Degraded) {
	if o == nil {
		return
	}
	d.Fallbacks += o.Fallbacks
	d.ModelErrors += o.ModelErrors
	d.BadReplies += o.BadReplies
	d.Repaired += o.Repaired
	d.IngestErrors += o.IngestErrors
}

// Key identifies an episode record for resume and merge.
func (e EpisodeStat) Key() string {
	return e.Benchmark + "\x1f" + e.Episode + "\x1f" + e.System + "\x1f" + e.Variant
}
