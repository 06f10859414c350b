package runners

// The doctor's endpoint probes: each asks a server directly (no pool,
// retry or cache) what the model path takes for granted of it, and says
// which config key to change when the answer differs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/jsonx"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/text"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// doctorProbeTimeout bounds each probe, whatever the endpoint's timeout.
const doctorProbeTimeout = 60 * time.Second

// prober holds what the probes share; lat collects the probes' latencies
// by role (the speed estimate's fallback when the slice made no call).
type prober struct {
	cfg *config.Config
	hc  *http.Client
	lat map[string][]time.Duration
}

func newProber(cfg *config.Config) *prober {
	return &prober{cfg: cfg, hc: llm.NewHTTPClient(), lat: map[string][]time.Duration{}}
}

func (p *prober) timed(role string, start time.Time) {
	p.lat[role] = append(p.lat[role], time.Since(start))
}

// first returns the first endpoint of a remote role.
func first(r config.Role) (config.Endpoint, bool) {
	if r.Local() || len(r.Endpoints) == 0 {
		return config.Endpoint{}, false
	}
	return r.Endpoints[0], true
}

// ServedModel is one entry of a /v1/models reply.
type ServedModel struct {
	ID string `json:"id"`
	// MaxModelLen is vLLM's context length (0 when the server omits it).
	MaxModelLen int `json:"max_model_len"`
}

// maxReply bounds a probe's reply body.
const maxReply = 8 << 20

// ParseModels reads a /v1/models reply ({"data": [{id, max_model_len}]}).
func ParseModels(body []byte) ([]ServedModel, error) {
	var v struct {
		Data []struct {
			ID          string          `json:"id"`
			MaxModelLen json.RawMessage `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("models reply: %w", err)
	}
	out := make([]ServedModel, 0, len(v.Data))
	for i, d := range v.Data {
		if d.ID == "" {
			return nil, fmt.Errorf("models reply: data[%d] has no id", i)
		}
		m := ServedModel{ID: d.ID}
		if len(d.MaxModelLen) > 0 && string(d.MaxModelLen) != "null" {
			var n float64
			if err := json.Unmarshal(d.MaxModelLen, &n); err != nil || n < 0 || n > math.MaxInt32 || n != math.Trunc(n) {
				return nil, fmt.Errorf("models reply: data[%d].max_model_len %s is not a token count", i, d.MaxModelLen)
			}
			m.MaxModelLen = int(n)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseEmbeddings reads the vectors of an OpenAI /v1/embeddings reply, in
// input order, as served (not normalised): n vectors expected.
func ParseEmbeddings(body []byte, n int) ([][]float64, error) {
	var v struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("embeddings reply: %w", err)
	}
	if len(v.Data) != n {
		return nil, fmt.Errorf("embeddings reply: %d vectors for %d texts", len(v.Data), n)
	}
	out := make([][]float64, n)
	for _, d := range v.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings reply: bad or repeated index %d", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// call sends a request to an endpoint's server root + path and returns the
// 2xx body; errors name the URL without credentials.
func (p *prober) call(ctx context.Context, ep config.Endpoint, method, path string, in any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, doctorProbeTimeout))
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, llm.EndpointURL(ep.URL, path), body)
	if err != nil {
		return nil, fmt.Errorf("%s%s: bad url", llm.DisplayURL(ep.URL), path)
	}
	req.Header.Set("Content-Type", "application/json")
	if k := ep.APIKey.Reveal(); k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s%s: unreachable", llm.DisplayURL(ep.URL), path)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return nil, fmt.Errorf("%s%s: reading the reply: %w", llm.DisplayURL(ep.URL), path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s%s: status %d: %s", llm.DisplayURL(ep.URL), path, resp.StatusCode, oneLine(string(b)))
	}
	return b, nil
}

// models checks every remote endpoint: reachable, serving the configured
// model, and (chat) with the context the answer step needs.
func (p *prober) models(ctx context.Context, r *DoctorReport) {
	for _, nr := range p.cfg.Models.Roles() {
		if nr.Role.Local() {
			v := VerdictOK
			fix := ""
			if nr.Name == "chat" || nr.Name == "embed" || nr.Name == "rerank" {
				v, fix = VerdictWarn, fmt.Sprintf("models.%s.endpoints: point the role at a server to check the model path", nr.Name)
			}
			r.add(nr.Name, "reachable", v, "offline provider: nothing to probe", fix)
			continue
		}
		for i, ep := range nr.Role.Endpoints {
			key := fmt.Sprintf("models.%s.endpoints[%d]", nr.Name, i)
			where := llm.DisplayURL(ep.URL)
			if nr.Name == "rerank" && nr.Role.API == "tei" {
				// TEI serves no /v1/models; the rerank probe reaches it.
				r.add(nr.Name, "reachable", VerdictOK, where+": TEI (no models list; see the rerank lines)", "")
				continue
			}
			start := time.Now()
			body, err := p.call(ctx, ep, http.MethodGet, "/v1/models", nil)
			p.timed(nr.Name, start)
			if err != nil {
				r.add(nr.Name, "reachable", VerdictFail, oneLine(err.Error()), key+".url: start the server or correct the address (arbor endpoints check)")
				continue
			}
			served, err := ParseModels(body)
			if err != nil {
				r.add(nr.Name, "reachable", VerdictFail, where+": "+err.Error(), key+".url: is this an OpenAI-compatible server?")
				continue
			}
			var ids []string
			var m *ServedModel
			for j := range served {
				ids = append(ids, served[j].ID)
				if served[j].ID == ep.Model {
					m = &served[j]
				}
			}
			if m == nil && len(served) > 0 {
				r.add(nr.Name, "model", VerdictFail, fmt.Sprintf("%s serves %s, not %q", where, strings.Join(ids, ", "), ep.Model), key+".model: "+ids[0])
				continue
			}
			r.add(nr.Name, "model", VerdictOK, fmt.Sprintf("%s serves %q", where, ep.Model), "")
			if (nr.Name == "chat" || nr.Name == "judge") && m != nil && m.MaxModelLen > 0 {
				p.contextLine(r, nr.Name, key, m.MaxModelLen)
			}
		}
	}
}

// contextHeadroom is the prompt around the evidence (instructions, question,
// ArborMem's layout) that the context must hold beside answer.budget and
// answer.max_tokens.
const contextHeadroom = 2048

func (p *prober) contextLine(r *DoctorReport, role, key string, served int) {
	a := p.cfg.Answer
	need := a.Budget + a.MaxTokens + contextHeadroom
	switch {
	case role == "chat" && served < need:
		r.add(role, "context length", VerdictFail, fmt.Sprintf("max_model_len %d < answer.budget %d + answer.max_tokens %d + %d of prompt", served, a.Budget, a.MaxTokens, contextHeadroom),
			fmt.Sprintf("serve with --max-model-len %d (the paper's 40960), or lower answer.budget to %d", a.MaxContext, max(0, served-a.MaxTokens-contextHeadroom)))
	case served != a.MaxContext:
		r.add(role, "context length", VerdictWarn, fmt.Sprintf("max_model_len %d, answer.max_context says %d", served, a.MaxContext), fmt.Sprintf("answer.max_context: %d (recorded in manifests), or serve with --max-model-len %d", served, a.MaxContext))
	default:
		r.add(role, "context length", VerdictOK, fmt.Sprintf("max_model_len %d holds answer.budget %d + answer.max_tokens %d", served, a.Budget, a.MaxTokens), "")
	}
}

// thinks reports whether a reply carries a thinking block, in the content
// (no reasoning parser) or in the reasoning field.
func thinks(resp llm.ChatResponse) bool {
	return strings.TrimSpace(resp.Reasoning) != "" || strings.Contains(strings.ToLower(resp.Content), "</think>")
}

// chat checks the first chat endpoint: thinking as configured, JSON mode,
// a deterministic reply at temperature 0.
func (p *prober) chat(ctx context.Context, r *DoctorReport) {
	ep, ok := first(p.cfg.Models.Chat)
	if !ok {
		return
	}
	c := llm.NewChatClient(ep, p.hc)
	ask := func(req llm.ChatRequest) (llm.ChatResponse, error) {
		ctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, doctorProbeTimeout))
		defer cancel()
		if t := p.cfg.Answer.EnableThinking; t != nil {
			req.ChatTemplateKwargs = map[string]any{"enable_thinking": *t}
		}
		start := time.Now()
		defer p.timed("chat", start)
		return c.Chat(ctx, req)
	}
	msg := []llm.Message{{Role: "user", Content: "Name the capital of France in one word."}}
	a, err := ask(llm.ChatRequest{Messages: msg, Temperature: 0, MaxTokens: 64, Purpose: "doctor"})
	if err != nil {
		r.add("chat", "reply", VerdictFail, oneLine(err.Error()), "models.chat.endpoints[0]: see arbor endpoints check")
		return
	}
	t := p.cfg.Answer.EnableThinking
	switch {
	case thinks(a) && (t == nil || *t):
		r.add("chat", "thinking", VerdictFail, fmt.Sprintf("the model opens its replies with a thinking block: every memory operation and answer pays for it, and an answer's %d tokens (answer.max_tokens) or a judgement's %d (judge.max_tokens) may end inside it", p.cfg.Answer.MaxTokens, p.cfg.Judge.MaxTokens),
			"answer.enable_thinking: false (sent as chat_template_kwargs to every chat and judge call)")
	case thinks(a):
		r.add("chat", "thinking", VerdictFail, "the model thinks although answer.enable_thinking is false: the server ignores chat_template_kwargs",
			"serve an Instruct (non-thinking) model, as the paper does (models.chat.endpoints[].model), or a chat template that reads enable_thinking")
	default:
		mode := "off"
		if t != nil && *t {
			mode = "on, but the reply shows none"
		}
		r.add("chat", "thinking", VerdictOK, "no thinking block ("+mode+")", "")
	}
	b, err := ask(llm.ChatRequest{Messages: msg, Temperature: 0, MaxTokens: 64, Purpose: "doctor"})
	switch {
	case err != nil:
		r.add("chat", "deterministic", VerdictFail, oneLine(err.Error()), "models.chat.endpoints[0]")
	case b.Content != a.Content:
		r.add("chat", "deterministic", VerdictWarn, fmt.Sprintf("two replies at temperature 0 differ (%q, %q): the response cache and re-runs will not reproduce", text.ClipRunes(text.OneLine(a.Content), 40), text.ClipRunes(text.OneLine(b.Content), 40)),
			"answer.temperature: 0 and answer.seed (sent with every call); a server with batch-invariant kernels, or accept the variance")
	default:
		r.add("chat", "deterministic", VerdictOK, "the same reply twice at temperature 0", "")
	}
	j, err := ask(llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: `Reply with a JSON object whose key "capital" holds the capital of France.`}},
		Temperature: 0, MaxTokens: 64, ResponseFormat: "json_object", Purpose: "doctor"})
	if err != nil {
		r.add("chat", "json mode", VerdictFail, "response_format json_object refused: "+oneLine(err.Error()), "serve with a guided-decoding backend (vLLM's default xgrammar); memory operations ask for JSON in the prompt")
		return
	}
	var obj map[string]any
	content := strings.TrimSpace(j.Content)
	afterThink := content
	if i := strings.LastIndex(strings.ToLower(content), "</think>"); i >= 0 {
		afterThink = strings.TrimSpace(content[i+len("</think>"):])
	}
	switch raw, xerr := jsonx.Extract(content); {
	case json.Unmarshal([]byte(content), &obj) == nil:
		r.add("chat", "json mode", VerdictOK, "a strict JSON object under response_format json_object", "")
	case json.Unmarshal([]byte(afterThink), &obj) == nil:
		r.add("chat", "json mode", VerdictOK, "a strict JSON object after the thinking block (see thinking)", "")
	case xerr == nil && json.Valid([]byte(raw)):
		r.add("chat", "json mode", VerdictWarn, fmt.Sprintf("JSON only after repair (%q): memory replies will be repaired, not parsed", text.ClipRunes(text.OneLine(content), 60)),
			"answer.enable_thinking: false if a thinking block surrounds it; otherwise watch the slice's parse rates below")
	default:
		r.add("chat", "json mode", VerdictFail, fmt.Sprintf("no JSON in %q", text.ClipRunes(text.OneLine(content), 60)), "models.chat.endpoints[].model: an instruction-following model (the paper's Qwen3-30B-A3B-Instruct-2507)")
	}
}

// The embedding sanity triple: a question, its paraphrase and an unrelated
// sentence.
var embedProbe = []string{
	"How old is my daughter Emma now?",
	"What is the age of my daughter Emma at the moment?",
	"The train to Boston leaves from platform nine.",
}

func (p *prober) embed(ctx context.Context, r *DoctorReport) {
	ep, ok := first(p.cfg.Models.Embed)
	if !ok {
		return
	}
	start := time.Now()
	body, err := p.call(ctx, ep, http.MethodPost, "/v1/embeddings", map[string]any{"model": ep.Model, "input": embedProbe})
	p.timed("embed", start)
	if err != nil {
		r.add("embed", "reply", VerdictFail, oneLine(err.Error()), "models.embed.endpoints[0]")
		return
	}
	vs, err := ParseEmbeddings(body, len(embedProbe))
	if err != nil {
		r.add("embed", "reply", VerdictFail, err.Error(), "models.embed.endpoints[0].url: an OpenAI-compatible embeddings server")
		return
	}
	dim := len(vs[0])
	if want := p.cfg.Models.Embed.Dim; want > 0 && dim != want {
		r.add("embed", "dimension", VerdictFail, fmt.Sprintf("vectors of %d dimensions, models.embed.dim says %d (every embedding call would fail)", dim, want),
			fmt.Sprintf("models.embed.dim: %d, or serve BGE-M3 (1024) as the paper does", dim))
	} else {
		r.add("embed", "dimension", VerdictOK, fmt.Sprintf("%d dimensions, as models.embed.dim", dim), "")
	}
	worst := 0.0
	for _, v := range vs {
		worst = math.Max(worst, math.Abs(norm(v)-1))
	}
	if worst > 0.01 {
		r.add("embed", "normalised", VerdictWarn, fmt.Sprintf("vector norms differ from 1 by up to %.2f: arbor normalises its own vectors, but the bridged systems (Mem0, A-MEM, Graphiti, LiCoMemory) read them raw", worst),
			"models.embed: serve normalised vectors (vLLM --override-pooler-config '{\"normalize\": true}', TEI normalize), or run no bridged system")
	} else {
		r.add("embed", "normalised", VerdictOK, "unit-length vectors", "")
	}
	para, other := cosineSim(vs[0], vs[1]), cosineSim(vs[0], vs[2])
	if para > other {
		r.add("embed", "sanity", VerdictOK, fmt.Sprintf("paraphrase %.2f > unrelated %.2f", para, other), "")
	} else {
		r.add("embed", "sanity", VerdictFail, fmt.Sprintf("paraphrase %.2f ≤ unrelated %.2f: not a sentence-embedding model", para, other), "models.embed.endpoints[].model: BAAI/bge-m3")
	}
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func cosineSim(a, b []float64) float64 {
	if len(a) != len(b) {
		return 0
	}
	var d float64
	for i := range a {
		d += a[i] * b[i]
	}
	if n := norm(a) * norm(b); n > 0 {
		return d / n
	}
	return 0
}

// The rerank probe: an answering passage and an unrelated one. A
// cross-encoder's logits for them are far apart on either side of 0; its
// probabilities stay in [0, 1].
const rerankQuery = "What is the capital of France?"

var rerankDocs = []string{"Paris is the capital and largest city of France.", "Add two cups of flour and a pinch of salt to the bowl."}

// ScoreScale names the scale of a reranker's scores: "logit" when any
// score falls outside [0, 1], else "probability".
func ScoreScale(scores []float64) string {
	for _, s := range scores {
		if s < 0 || s > 1 {
			return "logit"
		}
	}
	return "probability"
}

func (p *prober) rerank(ctx context.Context, r *DoctorReport) {
	role := p.cfg.Models.Rerank
	ep, ok := first(role)
	if !ok {
		return
	}
	c := llm.NewRerankClient(ep, role.API, p.hc)
	ask := func(q string) ([]float64, error) {
		ctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, doctorProbeTimeout))
		defer cancel()
		start := time.Now()
		defer p.timed("rerank", start)
		return c.Rerank(ctx, q, rerankDocs)
	}
	s, err := ask(rerankQuery)
	if err != nil {
		r.add("rerank", "reply", VerdictFail, oneLine(err.Error()), "models.rerank.endpoints[0] and models.rerank.api (vllm or tei)")
		return
	}
	got := ScoreScale(s)
	read := "probability"
	if role.RerankLogits() {
		read = "logit"
	}
	detail := fmt.Sprintf("scores %.3g (answering) and %.3g (unrelated) are %s scores; models.rerank.scores %s reads them as %s scores", s[0], s[1], got, orAuto(role.Scores), read)
	switch {
	case got != read && got == "logit":
		r.add("rerank", "score scale", VerdictFail, detail+": clamped to [0, 1], every s_ce collapses and almost every turn starts a new root",
			"models.rerank.scores: logit")
	case got != read:
		r.add("rerank", "score scale", VerdictFail, detail+": s_ce never exceeds 1 on the logit scale τ = 8 is stated on, so almost every turn starts a new root",
			"models.rerank.scores: probability (ArborMem recovers the logit), or ask TEI for raw_scores with a model that has them")
	default:
		r.add("rerank", "score scale", VerdictOK, detail, "")
	}
	if s[0] <= s[1] {
		r.add("rerank", "sanity", VerdictFail, fmt.Sprintf("the answering passage scores %.3g ≤ the unrelated one %.3g", s[0], s[1]), "models.rerank.endpoints[].model: a cross-encoder (BAAI/bge-reranker-v2-m3)")
	}
	mode := p.cfg.ArborMem.CEScore
	if mode == arbormem.CEScaled {
		r.add("rerank", "ce_score", VerdictWarn, "arbormem.ce_score scaled: s_ce = ce_scale × probability, not the logit the paper's τ = 8 and topic constants are stated on",
			"arbormem.ce_score: auto (the logit for a model reranker); compare the readings below")
	} else {
		r.add("rerank", "ce_score", VerdictOK, "s_ce is the reranker's logit (arbormem.ce_score "+orAuto(mode)+")", "")
	}
	if ins := p.cfg.ArborMem.RerankInstruction; ins == "off" {
		r.add("rerank", "instruction", VerdictOK, "arbormem.rerank_instruction off: the bare input is sent", "")
		return
	}
	ps, err := prompt.Load(p.cfg.PromptsDir)
	if err != nil {
		r.add("rerank", "instruction", VerdictFail, oneLine(err.Error()), "prompts_dir")
		return
	}
	q, err := ps.Render("reranker_instruction", struct{ Query string }{rerankQuery})
	if err != nil {
		r.add("rerank", "instruction", VerdictFail, oneLine(err.Error()), "prompts_dir: reranker_instruction.tmpl")
		return
	}
	si, err := ask(q)
	switch {
	case err != nil:
		r.add("rerank", "instruction", VerdictFail, "the instruction-prefixed query is refused: "+oneLine(err.Error()), "arbormem.rerank_instruction: off")
	case si[0] <= si[1]:
		r.add("rerank", "instruction", VerdictWarn, fmt.Sprintf("with the instruction prefix the answering passage no longer ranks first (%.3g vs %.3g)", si[0], si[1]), "arbormem.rerank_instruction: off")
	default:
		r.add("rerank", "instruction", VerdictOK, fmt.Sprintf("accepted; answering passage %.3g, unrelated %.3g with the prefix", si[0], si[1]), "")
	}
}

func orAuto(s string) string {
	if s == "" {
		return "auto"
	}
	return s
}

// tokenizerSample is what the server's token counts are compared on: prose,
// numbers, a date, code, and non-ASCII text.
var tokenizerSample = []string{
	"I moved to Lisbon on 3 March 2023 and started at the new job the week after.",
	"The invoice total was $1,249.50, paid in two instalments (60% / 40%).",
	"func main() { fmt.Println(\"hello, world\") } // prints a greeting",
	"Ich habe für Émilie ein Geschenk gekauft — 東京で買った。",
	"Remind me: the dentist is on Tuesday at 4:15pm, not Thursday.",
}

// tokenizer compares a server's /tokenize counts with the local Qwen3
// counter (the one budgets are counted with): the tokenizer role's server,
// else the first chat server's.
func (p *prober) tokenizer(ctx context.Context, r *DoctorReport) {
	ep, ok := first(p.cfg.Models.Tokenizer)
	source := "models.tokenizer"
	if !ok {
		if ep, ok = first(p.cfg.Models.Chat); !ok {
			return
		}
		source = "the chat server"
	}
	c := llm.NewTokenizeClient(ep, p.hc)
	local := tokens.Default()
	var mine, theirs int
	for _, text := range tokenizerSample {
		cctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, doctorProbeTimeout))
		n, err := c.Tokenize(cctx, text)
		cancel()
		if err != nil {
			var se *llm.StatusError
			v := VerdictFail
			if errors.As(err, &se) && se.Code == http.StatusNotFound {
				v = VerdictWarn
			}
			r.add("tokenizer", "counts", v, "cannot compare: "+oneLine(err.Error()), "budgets are counted with the local Qwen3 counter; check that "+source+" serves /tokenize (vLLM does)")
			return
		}
		mine += local.Count(text)
		theirs += n
	}
	diff := float64(theirs-mine) / float64(max(mine, 1))
	detail := fmt.Sprintf("%s counts %d tokens where the local Qwen3 counter counts %d (%+.1f%%) on %d texts", source, theirs, mine, 100*diff, len(tokenizerSample))
	switch {
	case theirs == mine:
		r.add("tokenizer", "counts", VerdictOK, detail, "")
	case math.Abs(diff) <= 0.01:
		r.add("tokenizer", "counts", VerdictWarn, detail+": budgets are off by up to a percent", "models.tokenizer: {provider: openai, endpoints: [this server], verify_every: 16} switches to the server's counts at the first disagreement")
	default:
		r.add("tokenizer", "counts", VerdictFail, detail+": every evidence budget is counted in the wrong tokens",
			"models.tokenizer: {provider: openai, endpoints: [the chat server], verify_every: 0} (count with the server), or serve a Qwen3 model")
	}
}
