// Package fake is the speaking fake endpoint: it makes the fake OpenAI-compatible server (pkg/llm/openaifake)
// speak every prompt of pkg/prompt, so that the model-backed path runs end
// to end without a GPU. It recognises a chat request by the fixed text of
// the template it was rendered from, reads the template's fields back out of
// the request, and replies in the exact schema the prompt asks for with what
// arbor's offline rule-based implementation computes from those fields:
// ArborMem's memory operations (rules.Ops), the extractive answerer
// (answer.Extract), the lexical judges (scoring.LexicalReply), the
// extractive session summaries (baselines.HeuristicSummary) and, for the
// BranchMemEval verbaliser, the draft turn itself. Mem0's own prompts, which
// the Mem0 bridge sends, are answered by openaifake.Mem0Reply. Embeddings and reranks
// come from the offline providers (pkg/llm/local), the reranker instruction
// stripped from the query, so a model-backed run against a speaking fake
// computes what the offline run computes, through every client, prompt and
// parser of the model path.
//
// A seeded noise knob (Options.Noise) varies replies the way real chat
// models do (see Noise), so parsing robustness is measured, not assumed;
// Stats counts, per prompt, the replies given, varied, and those no parser
// could read.
package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/baselines"
	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/jsonx"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"
)

// Options configure a Speaker. The zero value speaks every prompt
// noiselessly with 1024-dimensional offline embeddings.
type Options struct {
	// Noise is the share of replies varied (0 to 1), drawn per request from
	// a generator seeded by Seed and the request's messages, so a run is
	// reproducible whatever the order requests arrive in.
	Noise float64
	Seed  uint64
	// Dim is the embedding dimension (1024, the default config's
	// models.embed.dim).
	Dim int
	// Fallback answers requests that match no prompt in Reply
	// (openaifake.EchoReply); a speaker installed in a fake leaves them to the
	// fake's own replies instead (Install).
	Fallback func(openaifake.Request) string
	// Prompts are further prompt sets whose wording is recognised beside the
	// embedded one: a prompts_dir, such as the paper's own prompts written by
	// `arbor prompts import`. Their overridden prompts get the same replies.
	Prompts []*prompt.Set
}

// Unrecognised is the Stats key of requests that matched no prompt.
const Unrecognised = "(unrecognised)"

// Mem0 is the Stats key of Mem0's own memory prompts (fact extraction and
// memory update), which the fake answers with openaifake.Mem0Reply.
const Mem0 = "mem0"

// PromptStats counts what the speaker replied to one prompt.
type PromptStats struct {
	// Replies counts replies given, Repairs those to a repair request (the
	// prompt followed by the model's earlier reply and a request to fix it).
	Replies int `json:"replies"`
	Repairs int `json:"repairs,omitempty"`
	// Noisy counts varied replies, by kind (see Noise).
	Noisy map[string]int `json:"noisy,omitempty"`
	// Unparseable counts JSON replies from which pkg/jsonx cannot extract
	// a value of the prompt's shape (list or object); UnparseableRepairs
	// those among the repair replies, after which a caller gives up.
	Unparseable        int `json:"unparseable,omitempty"`
	UnparseableRepairs int `json:"unparseable_repairs,omitempty"`
}

// Speaker answers chat, embedding and rerank requests; safe for concurrent use.
type Speaker struct {
	opts     Options
	match    []*matcher
	anchors  []string   // system_anchor of each set, as the layout's first system message opens
	rerank   []*matcher // reranker_instruction of each set
	notes    []string
	embedder *local.Embedder
	reranker *local.Reranker
	rules    rules.Ops

	mu    sync.Mutex
	stats map[string]*PromptStats
	// metas remembers, by summary, the interaction and metadata of each
	// node_metadata reply: path_evolution shows only the current summary,
	// while the rule that starts a new branch's topic reads the user's own
	// words and the node's entities (arbormem's PathSummary).
	metas map[string]nodeMemo
}

type nodeMemo struct {
	meta ops.NodeMeta
	in   dialog.Interaction
}

// maxMemo bounds the node_metadata memo; it is cleared when full.
const maxMemo = 1 << 16

// New builds a speaker for the embedded prompts.
func New(opts Options) (*Speaker, error) {
	if opts.Dim <= 0 {
		opts.Dim = 1024
	}
	if opts.Noise < 0 || opts.Noise > 1 {
		return nil, fmt.Errorf("speaker: noise %v: want a rate in [0, 1]", opts.Noise)
	}
	if opts.Fallback == nil {
		opts.Fallback = openaifake.EchoReply
	}
	s := &Speaker{opts: opts, embedder: local.NewEmbedder(opts.Dim),
		reranker: local.NewReranker(), rules: rules.Ops{}, stats: map[string]*PromptStats{}, metas: map[string]nodeMemo{}}
	for i, ps := range append([]*prompt.Set{prompt.Default()}, opts.Prompts...) {
		if err := s.learn(ps, i > 0); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// learn adds the matchers of set ps: every chat prompt, or with overrides
// only those it overrides, its reranker instruction, system anchor and
// chain-of-note texts.
func (s *Speaker) learn(ps *prompt.Set, overrides bool) error {
	var chat []string
	for _, n := range ps.Names() {
		if overrides && !slices.Contains(ps.Overridden, n) {
			continue
		}
		if r, ok := lookup(n); ok && r.chat != nil {
			chat = append(chat, n)
		}
	}
	ms, err := matchers(ps, chat)
	if err != nil {
		return err
	}
	s.match = append(s.match, ms...)
	rr, err := compile(ps, "reranker_instruction")
	if err != nil {
		return err
	}
	s.rerank = append(s.rerank, rr)
	anchor, err := ps.Render("system_anchor", nil)
	if err != nil {
		return err
	}
	s.anchors = append(s.anchors, strings.TrimRight(anchor, "\n"))
	for _, n := range []string{"chain_of_note", "chain_of_note_no_facts"} {
		t, err := ps.Render(n, nil)
		if err != nil {
			return err
		}
		s.notes = append(s.notes, strings.TrimSpace(t))
	}
	return nil
}

// Install returns o with the speaker's chat, embedding and rerank rules,
// and, unless o has its own, /tokenize counts by the exact offline Qwen3
// counter (the tokenizer of the models the paper serves). Requests it does
// not recognise go on to o's own replies (Reply, Replies, or the fake's
// defaults).
func (s *Speaker) Install(o openaifake.Options) openaifake.Options {
	o.Speak, o.Embed, o.Rerank, o.Dim = s.Speak, s.Embed, s.Rerank, s.opts.Dim
	if o.CountPrompt == nil {
		o.CountPrompt = tokens.Default().Count
	}
	return o
}

// Stats returns the counts so far by prompt name (Unrecognised for
// requests that matched no prompt).
func (s *Speaker) Stats() map[string]PromptStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]PromptStats{}
	for k, v := range s.stats {
		c := *v
		c.Noisy = map[string]int{}
		for n, x := range v.Noisy {
			c.Noisy[n] = x
		}
		out[k] = c
	}
	return out
}

// Embed embeds texts with the offline hashed n-gram embedder. A text with
// no features (only stop words or punctuation) gets the first unit vector
// instead of the offline zero vector: no embedding model returns a zero
// vector, and arbor's client rejects one as malformed.
func (s *Speaker) Embed(texts []string) [][]float32 {
	v, _ := s.embedder.Embed(context.Background(), texts)
	for i, x := range v {
		if !slices.ContainsFunc(x, func(f float32) bool { return f != 0 }) && len(x) > 0 {
			v[i] = make([]float32, len(x))
			v[i][0] = 1
		}
	}
	return v
}

// Rerank scores docs with the offline lexical reranker. A query wrapped in
// the reranker instruction (reranker_instruction) is unwrapped first: its
// fixed words are for a cross-encoder and would dilute the lexical scores.
func (s *Speaker) Rerank(query string, docs []string) []float64 {
	for _, m := range s.rerank {
		if f, ok := m.match(query); ok {
			query = f["Query"]
			break
		}
	}
	v, _ := s.reranker.Rerank(context.Background(), query, docs)
	return v
}

// Reply answers a chat request, with Options.Fallback when it matches no
// prompt.
func (s *Speaker) Reply(req openaifake.Request) string {
	if r, ok := s.Speak(req); ok {
		return r
	}
	return s.opts.Fallback(req)
}

// Speak answers a chat request that renders one of arbor's prompts; ok is
// false (and the request counted as Unrecognised) otherwise.
func (s *Speaker) Speak(req openaifake.Request) (string, bool) {
	name, reply, shape, ok := s.respond(req)
	repair := isRepair(req)
	if !ok {
		s.count(Unrecognised, repair, "", false)
		return "", false
	}
	kind := ""
	if s.opts.Noise > 0 {
		rng := s.rng(req)
		if rng.Float64() < s.opts.Noise {
			reply, kind = vary(reply, shape, req.MaxTokens, rng)
		}
	}
	bad := false
	if shape != 0 {
		bad = !parseable(visible(reply, req.MaxTokens), shape)
	}
	s.count(name, repair, kind, bad)
	return reply, true
}

func (s *Speaker) count(name string, repair bool, kind string, bad bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats[name]
	if st == nil {
		st = &PromptStats{Noisy: map[string]int{}}
		s.stats[name] = st
	}
	st.Replies++
	if repair {
		st.Repairs++
	}
	if kind != "" {
		st.Noisy[kind]++
	}
	if bad {
		st.Unparseable++
		if repair {
			st.UnparseableRepairs++
		}
	}
}

// rng is the noise generator of one request: seeded by Options.Seed and the
// request's messages, so the same request is varied the same way in every
// run and a repair request draws anew.
func (s *Speaker) rng(req openaifake.Request) *rand.Rand {
	h := fnv.New64a()
	for _, m := range req.Messages {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(s.opts.Seed, h.Sum64()))
}

// isRepair reports a repair request: a conversation in which the model has
// already replied once.
func isRepair(req openaifake.Request) bool {
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

// visible is the part of reply a client receives under maxTokens (the fake
// cuts replies at max_tokens words).
func visible(reply string, maxTokens int) string {
	w := openaifake.Tokens(strings.TrimSpace(reply))
	if maxTokens > 0 && len(w) > maxTokens {
		w = w[:maxTokens]
	}
	return strings.Join(w, "")
}

// parseable reports whether jsonx extracts a value of shape ('[' or '{')
// from text; a list prompt also accepts an object wrapping its list, as
// arbormem's reply decoder does.
func parseable(text string, shape byte) bool {
	raw, err := jsonx.Extract(text)
	if err != nil || !json.Valid([]byte(raw)) {
		return false
	}
	raw = strings.TrimSpace(raw)
	return raw != "" && (raw[0] == shape || shape == '[' && raw[0] == '{')
}

// respond finds the prompt of req and computes its reply; shape is '[' or
// '{' for a JSON reply and 0 for text.
func (s *Speaker) respond(req openaifake.Request) (name, reply string, shape byte, ok bool) {
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" && s.anchored(req.Messages[0].Content) {
		reply, ok := s.layoutAnswer(req.Messages)
		return "system_anchor", reply, 0, ok
	}
	if r, ok := openaifake.Mem0Reply(req); ok {
		return Mem0, r, '{', true
	}
	var first string
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Content
			break
		}
	}
	for _, m := range s.match {
		f, ok := m.match(first)
		if !ok {
			continue
		}
		r := registry[m.name]
		reply, err := r.chat(s, f)
		if err != nil {
			return m.name, "", 0, false
		}
		return m.name, reply, r.shape, true
	}
	return "", "", 0, false
}

// anchored reports whether a system message opens with a known
// system_anchor.
func (s *Speaker) anchored(content string) bool {
	for _, a := range s.anchors {
		if strings.HasPrefix(content, a) {
			return true
		}
	}
	return false
}

// layoutAnswer answers the runtime assembly every system is answered
// through (arbormem.RenderAnswer):
// the system_anchor message with the current time, one system message per
// evidence block, and a user message with ### DATA CONTEXT, [UpdateEvidence],
// ### INSTRUCTION (answer_format, chain_of_note or chain_of_note_no_facts,
// history_hints) and ### USER INPUT, or only the answer format and the
// question when nothing was recalled. The bundle is read back and answered
// extractively. An instruction without the chain-of-note text (an
// overridden chain_of_note) is not recognised.
func (s *Speaker) layoutAnswer(msgs []openaifake.Message) (string, bool) {
	var items []memory.Item
	var user string
	for _, m := range msgs[1:] {
		switch m.Role {
		case "system":
			if loc := reBlock.FindStringSubmatchIndex(m.Content); loc != nil {
				block := m.Content[loc[2]:loc[3]]
				items = append(items, blockItems(block, m.Content[loc[1]:])...)
			}
		case "user":
			user = m.Content
		}
	}
	question := ""
	if i := strings.Index(user, "### INSTRUCTION\n"); i >= 0 {
		// The instruction holds the answer-format lines, the benchmark's
		// answer directives (both with ### headings of their own), the
		// chain-of-note text and the history hints, up to ### USER INPUT.
		instr := user[i:]
		if j := strings.LastIndex(instr, "### USER INPUT\n"); j >= 0 {
			instr = instr[:j]
		}
		noted := false
		for _, n := range s.notes {
			noted = noted || strings.Contains(instr, n)
		}
		if !noted {
			return "", false
		}
		i := strings.LastIndex(user, "### USER INPUT\n")
		if i < 0 {
			return "", false
		}
		question = user[i+len("### USER INPUT\n"):]
		if facts, ok := section(user, "### DATA CONTEXT"); ok {
			items = append(items, blockItems(memory.BlockFacts, facts)...)
		}
		if i := strings.Index(user, "\n\n["+memory.BlockUpdate+"]\n"); i >= 0 {
			up := user[i+len(memory.BlockUpdate)+4:]
			if j := strings.Index(up, "\n\n### "); j >= 0 {
				up = up[:j]
			}
			items = append(items, blockItems(memory.BlockUpdate, up)...)
		}
	} else {
		// No memory evidence: the answer-format lines and directives, then
		// the question; with nothing recalled the extractive answer is that
		// nothing is available, whatever the question.
		question = user
	}
	return answer.Extract(strings.TrimSpace(question), items), true
}

// responder answers one chat prompt from the fields read out of it.
type responder struct {
	// shape is '[' or '{' for a JSON reply, 0 for text.
	shape byte
	// chat computes the reply; nil for prompts that are not chat requests
	// of their own (layout fragments, the reranker instruction).
	chat func(s *Speaker, f map[string]string) (string, error)
	// part names what serves a prompt that is not a chat request of its
	// own: "layout" (a fragment of ArborMem's answer messages), "answer" (a
	// benchmark's answer directives, in the shared answer template and
	// ArborMem's layout alike) or "rerank".
	part string
}

// lookup finds what answers prompt name: its registry entry, or for a
// benchmark's answer directives (prompt.DirectivesPrefix) the answer
// responders, which read the evidence and the question around them.
func lookup(name string) (responder, bool) {
	if r, ok := registry[name]; ok {
		return r, true
	}
	if strings.HasPrefix(name, prompt.DirectivesPrefix) {
		return responder{part: "answer"}, true
	}
	return responder{}, false
}

// registry maps every prompt of pkg/prompt to what answers it. A test fails
// for a prompt missing here.
var registry = map[string]responder{
	"node_metadata":                {shape: '{', chat: (*Speaker).nodeMetadata},
	"path_evolution":               {chat: (*Speaker).pathEvolution},
	"atomic_fact_miner":            {shape: '[', chat: (*Speaker).facts},
	"assistant_artifact_miner":     {shape: '[', chat: (*Speaker).artifacts},
	"event_miner":                  {shape: '[', chat: (*Speaker).events},
	"state_slot_miner":             {shape: '[', chat: (*Speaker).states},
	"fact_collision_auditor_batch": {shape: '[', chat: (*Speaker).audit},
	"attribute_tag_predictor":      {shape: '[', chat: (*Speaker).tags},
	"session_summary":              {chat: (*Speaker).sessionSummary},
	"answer":                       {chat: (*Speaker).sharedAnswer},
	"bme_verbalize":                {shape: '{', chat: (*Speaker).verbalize},
	"judge_lme_abstention":         {chat: judge("judge_lme_abstention")},
	"judge_lme_knowledge_update":   {chat: judge("judge_lme_knowledge_update")},
	"judge_lme_preference":         {chat: judge("judge_lme_preference")},
	"judge_lme_standard":           {chat: judge("judge_lme_standard")},
	"judge_lme_temporal":           {chat: judge("judge_lme_temporal")},
	"judge_locomo":                 {shape: '{', chat: judge("judge_locomo")},
	"judge_beam_rubric":            {shape: '{', chat: judge("judge_beam_rubric")},
	"judge_beam_equivalence":       {chat: judge("judge_beam_equivalence")},
	"system_anchor":                {part: "layout"},
	"answer_format":                {part: "layout"},
	"chain_of_note":                {part: "layout"},
	"chain_of_note_no_facts":       {part: "layout"},
	"history_hints":                {part: "layout"},
	"reranker_instruction":         {part: "rerank"},
}

// Covered lists the prompts of the embedded set the speaker answers, sorted.
func Covered() []string {
	var out []string
	for _, n := range prompt.Default().Names() {
		if _, ok := lookup(n); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func marshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// exchange is the interaction of a per-interaction memory prompt.
func exchange(f map[string]string) dialog.Interaction {
	return parseExchange(f["Exchange"], parseTime(f["Time"]))
}

var ctx0 = context.Background()

func (s *Speaker) nodeMetadata(f map[string]string) (string, error) {
	in := exchange(f)
	m, err := s.rules.NodeMetadata(ctx0, in)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if len(s.metas) >= maxMemo {
		s.metas = map[string]nodeMemo{}
	}
	s.metas[m.Summary] = nodeMemo{meta: m, in: in}
	s.mu.Unlock()
	if m.Entities == nil {
		m.Entities = []string{}
	}
	return marshal(struct {
		Summary  string   `json:"summary"`
		Entities []string `json:"entities"`
	}{m.Summary, m.Entities})
}

// newBranch is how arbormem's path_evolution prompt says there is no
// previous path summary.
const newBranch = "(none"

func (s *Speaker) pathEvolution(f map[string]string) (string, error) {
	prev, cur := strings.TrimSpace(f["PrevPathSummary"]), strings.TrimSpace(f["CurrentSummary"])
	if strings.HasPrefix(prev, newBranch) {
		prev = ""
	}
	s.mu.Lock()
	memo, ok := s.metas[cur]
	s.mu.Unlock()
	if !ok {
		memo = nodeMemo{meta: ops.NodeMeta{Summary: cur}, in: dialog.Interaction{Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: cur}}}}
	}
	return s.rules.PathSummary(ctx0, prev, memo.meta, memo.in)
}

type factReply struct {
	Fact     string   `json:"fact"`
	Tag      string   `json:"attribute_tag"`
	Entities []string `json:"entities"`
}

func (s *Speaker) facts(f map[string]string) (string, error) {
	fs, err := s.rules.Facts(ctx0, exchange(f))
	if err != nil {
		return "", err
	}
	out := make([]factReply, 0, len(fs))
	for _, x := range fs {
		out = append(out, factReply{x.Fact, x.Tag, list(x.Entities)})
	}
	return marshal(out)
}

type artifactReply struct {
	Type     string   `json:"artifact_type"`
	Topic    string   `json:"topic"`
	Item     string   `json:"item_text"`
	Ordinal  *int     `json:"ordinal"`
	Entities []string `json:"entities"`
	Evidence string   `json:"evidence_text"`
}

func (s *Speaker) artifacts(f map[string]string) (string, error) {
	as, err := s.rules.Artifacts(ctx0, userAssistant(f["User"], f["Assistant"]))
	if err != nil {
		return "", err
	}
	out := make([]artifactReply, 0, len(as))
	for _, a := range as {
		r := artifactReply{Type: a.Type, Topic: a.Topic, Item: a.Item, Entities: list(a.Entities), Evidence: a.Evidence}
		if a.Ordinal > 0 {
			r.Ordinal = &a.Ordinal
		}
		out = append(out, r)
	}
	return marshal(out)
}

type eventReply struct {
	Type            string   `json:"event_type"`
	Subject         string   `json:"subject"`
	Object          string   `json:"object"`
	Value           string   `json:"value"`
	Quantity        *float64 `json:"quantity"`
	Unit            string   `json:"unit"`
	CanonicalAction string   `json:"canonical_action"`
	CanonicalObject string   `json:"canonical_object"`
	DateText        string   `json:"date_text"`
	NormalizedDate  string   `json:"normalized_date"`
	Negated         bool     `json:"is_negated"`
	Countable       bool     `json:"countable"`
	Entities        []string `json:"entities"`
	Evidence        string   `json:"evidence_text"`
}

func (s *Speaker) events(f map[string]string) (string, error) {
	es, err := s.rules.Events(ctx0, exchange(f))
	if err != nil {
		return "", err
	}
	out := make([]eventReply, 0, len(es))
	for _, e := range es {
		out = append(out, eventReply{e.Type, e.Subject, e.Object, e.Value, e.Quantity, e.Unit, e.CanonicalAction, e.CanonicalObject,
			e.DateText, e.NormalizedDate, e.Negated, e.Countable, list(e.Entities), e.Evidence})
	}
	return marshal(out)
}

type stateReply struct {
	Key      string   `json:"key"`
	Value    string   `json:"value"`
	Tag      string   `json:"attribute_tag"`
	Entities []string `json:"entities"`
	Evidence string   `json:"evidence_text"`
}

func (s *Speaker) states(f map[string]string) (string, error) {
	ss, err := s.rules.States(ctx0, exchange(f))
	if err != nil {
		return "", err
	}
	out := make([]stateReply, 0, len(ss))
	for _, x := range ss {
		out = append(out, stateReply{x.Key, x.Value, x.Tag, list(x.Entities), x.Evidence})
	}
	return marshal(out)
}

func (s *Speaker) audit(f map[string]string) (string, error) {
	var pairs []ops.AuditPair
	if err := json.Unmarshal([]byte(f["PairsJSON"]), &pairs); err != nil {
		return "", fmt.Errorf("fact_collision_auditor_batch: pairs: %w", err)
	}
	vs, err := s.rules.Audit(ctx0, pairs)
	if err != nil {
		return "", err
	}
	type verdict struct {
		PairID  string `json:"pair_id"`
		Verdict string `json:"verdict"`
	}
	out := make([]verdict, len(pairs))
	for i, p := range pairs {
		out[i] = verdict{p.ID, "INDEPENDENT"}
		if vs[i] {
			out[i].Verdict = "CONFLICT"
		}
	}
	return marshal(out)
}

func (s *Speaker) tags(f map[string]string) (string, error) {
	ts, err := s.rules.PredictTags(ctx0, strings.TrimSpace(f["Query"]))
	if err != nil {
		return "", err
	}
	return marshal(list(ts))
}

// reSummaryTurn opens one interaction of session_summary's list.
var reSummaryTurn = regexp.MustCompile(`(?m)^\[(\d{4}-\d\d-\d\d \d\d:\d\d|unknown)\]\n`)

// sessionSummary writes the extractive summary of the summary so far (its
// lines read as earlier statements) and the new interactions.
func (s *Speaker) sessionSummary(f map[string]string) (string, error) {
	var ins []dialog.Interaction
	if prev := strings.TrimSpace(f["Previous"]); prev != "" {
		prev = strings.TrimPrefix(prev, "### SUMMARY SO FAR\n")
		if i := strings.Index(prev, "\n\n### NEW INTERACTIONS"); i >= 0 {
			prev = prev[:i]
		}
		ins = append(ins, parseExchange(strings.TrimSpace(prev), parseTime("")))
	}
	text := f["Interactions"]
	locs := reSummaryTurn.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		ins = append(ins, parseExchange(strings.TrimSpace(text[loc[1]:end]), parseTime(text[loc[2]:loc[3]])))
	}
	return baselines.HeuristicSummary(ins), nil
}

func (s *Speaker) sharedAnswer(f map[string]string) (string, error) {
	return answer.Extract(strings.TrimSpace(f["Question"]), parseSharedEvidence(f["Evidence"])), nil
}

// verbalize keeps the draft turn as it is: the identity rewrite keeps every
// planned value and list, which is all the verbaliser checks.
func (s *Speaker) verbalize(f map[string]string) (string, error) {
	return marshal(struct {
		User      string `json:"user"`
		Assistant string `json:"assistant"`
	}{strings.TrimSpace(f["User"]), strings.TrimSpace(f["Assistant"])})
}

// judge answers a judge prompt with the lexical judge's verdict.
func judge(name string) func(*Speaker, map[string]string) (string, error) {
	return func(_ *Speaker, f map[string]string) (string, error) {
		in := scoring.JudgeInput{Date: strings.TrimSpace(f["Date"]), Question: strings.TrimSpace(f["Question"]),
			Gold: strings.TrimSpace(f["Gold"]), Response: strings.TrimSpace(f["Response"]),
			RubricItem: strings.TrimSpace(f["RubricItem"]), First: strings.TrimSpace(f["First"]), Second: strings.TrimSpace(f["Second"])}
		r, ok := scoring.LexicalReply(name, in)
		if !ok {
			return "", fmt.Errorf("speaker: %s is not a judge prompt", name)
		}
		return r, nil
	}
}

// list is xs, or an empty list rather than null.
func list(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
