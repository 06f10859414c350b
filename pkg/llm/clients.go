package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"

	openai "github.com/sashabaranov/go-openai"

	"github.com/arbor-eval/arbor/pkg/config"
)

// EmbedClient calls one endpoint's POST /v1/embeddings (vLLM, TEI, llama.cpp:
// {model, input: [str], encoding_format} → {data: [{index, embedding}], usage})
// through go-openai. One call is one request; batching is a decorator above.
type EmbedClient struct {
	oc    *openai.Client
	model string
	dim   int
	key   string
}

// NewEmbedClient returns a client for ep. dim is the expected dimension
// (models.embed.dim); a reply of another size is an error, since vectors of
// mixed sizes would silently break every index built on them.
func NewEmbedClient(ep config.Endpoint, dim int, hc *http.Client) *EmbedClient {
	return &EmbedClient{oc: newOpenAI(ep, hc), model: ep.Model, dim: dim, key: ep.APIKey.Reveal()}
}

// Dim is the configured vector dimension.
func (c *EmbedClient) Dim() int { return c.dim }

// Embed returns one L2-normalised vector per text, in input order.
func (c *EmbedClient) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	ex := &exchange{}
	res, err := c.oc.CreateEmbeddings(withExchange(ctx, ex), openai.EmbeddingRequestStrings{
		Input: texts, Model: openai.EmbeddingModel(c.model), EncodingFormat: openai.EmbeddingEncodingFormatFloat,
	})
	if err != nil {
		return nil, redact(replyErr(ctx, ex, "embeddings", err), c.key)
	}
	out, err := embeddingsInOrder(res.Data, len(texts), c.dim)
	if err != nil {
		return nil, err
	}
	noteTokens(ctx, res.Usage.PromptTokens, 0)
	return out, nil
}

// embeddingsInOrder checks a reply (one vector per input, each index once,
// all of the expected size, finite) and normalises the vectors.
func embeddingsInOrder(data []openai.Embedding, n, dim int) ([][]float32, error) {
	if len(data) != n {
		return nil, malformed("embeddings: %d vectors for %d inputs", len(data), n)
	}
	out := make([][]float32, n)
	for i, d := range data {
		if d.Index < 0 || d.Index >= n {
			return nil, malformed("embeddings: data[%d].index %d out of range [0,%d)", i, d.Index, n)
		}
		if out[d.Index] != nil {
			return nil, malformed("embeddings: data[%d].index %d repeated", i, d.Index)
		}
		if len(d.Embedding) == 0 || (dim > 0 && len(d.Embedding) != dim) {
			return nil, malformed("embeddings: data[%d] has dimension %d, expected %d (models.embed.dim)", i, len(d.Embedding), dim)
		}
		v, err := normalise(d.Embedding)
		if err != nil {
			return nil, malformed("embeddings: data[%d]: %v", i, err)
		}
		out[d.Index] = v
	}
	return out, nil
}

func normalise(v []float32) ([]float32, error) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("vector norm is %v", math.Sqrt(s))
	}
	inv := float32(1 / math.Sqrt(s))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out, nil
}

// RerankClient scores documents through one endpoint, in vLLM's or TEI's
// wire format.
//
//   - vLLM POST /v1/rerank {model, query, documents, top_n} →
//     {results: [{index, document, relevance_score}], usage: {total_tokens}}
//     (vllm-project/vllm vllm/entrypoints/pooling/score/protocol.py,
//     RerankRequest/RerankResponse; top_n 0 means all, sent explicitly).
//   - TEI POST /rerank {query, texts, raw_scores, truncate} → [{index, score}]
//     (huggingface/text-embeddings-inference router/src/http/types.rs,
//     RerankRequest/Rank). raw_scores is sent true: the reply holds the
//     cross-encoder's logits, which ArborMem's s_ce is by default (see
//     pkg/arbormem); vLLM's relevance_score is the sigmoid of the logit.
//
// Both reply sorted by score; scores are put back in input order here.
type RerankClient struct {
	hc    *http.Client
	url   string
	model string
	tei   bool
	key   string
}

// NewRerankClient returns a client for ep; api is "vllm" or "tei".
func NewRerankClient(ep config.Endpoint, api string, hc *http.Client) *RerankClient {
	c := &RerankClient{hc: hc, model: ep.Model, tei: api == "tei", key: ep.APIKey.Reveal()}
	if c.tei {
		c.url = EndpointURL(ep.URL, "/rerank")
	} else {
		c.url = EndpointURL(ep.URL, "/v1/rerank")
	}
	return c
}

// Rerank returns one score per document, in input order.
func (c *RerankClient) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	var in any
	if c.tei {
		in = struct {
			Query     string   `json:"query"`
			Texts     []string `json:"texts"`
			RawScores bool     `json:"raw_scores"`
			Truncate  bool     `json:"truncate"`
		}{query, docs, true, true}
	} else {
		in = struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}{c.model, query, docs, len(docs)}
	}
	var scores []float64
	err := postJSON(ctx, c.hc, c.url, c.key, in, func(b []byte) error {
		var tok int
		var err error
		if c.tei {
			scores, err = parseRerankTEI(b, len(docs))
		} else {
			scores, tok, err = parseRerankVLLM(b, len(docs))
		}
		noteTokens(ctx, tok, 0)
		return err
	})
	return scores, redact(err, c.key)
}

type rankedScore struct {
	Index int      `json:"index"`
	Score *float64 `json:"score"`
	// RelevanceScore is vLLM's (and Cohere's, Jina's) name for Score.
	RelevanceScore *float64 `json:"relevance_score"`
}

// parseRerankVLLM decodes a vLLM /v1/rerank reply for n documents.
func parseRerankVLLM(b []byte, n int) ([]float64, int, error) {
	var r struct {
		Results []rankedScore `json:"results"`
		Usage   struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, 0, malformed("rerank: %v", err)
	}
	s, err := scoresInOrder(r.Results, n)
	return s, r.Usage.TotalTokens, err
}

// parseRerankTEI decodes a TEI /rerank reply (a bare array) for n texts.
func parseRerankTEI(b []byte, n int) ([]float64, error) {
	var r []rankedScore
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, malformed("rerank: %v", err)
	}
	return scoresInOrder(r, n)
}

func scoresInOrder(rs []rankedScore, n int) ([]float64, error) {
	if len(rs) != n {
		return nil, malformed("rerank: %d results for %d documents", len(rs), n)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for i, r := range rs {
		if r.Index < 0 || r.Index >= n {
			return nil, malformed("rerank: results[%d].index %d out of range [0,%d)", i, r.Index, n)
		}
		if seen[r.Index] {
			return nil, malformed("rerank: results[%d].index %d repeated", i, r.Index)
		}
		s := r.Score
		if s == nil {
			s = r.RelevanceScore
		}
		if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
			return nil, malformed("rerank: results[%d] has no finite score or relevance_score", i)
		}
		seen[r.Index] = true
		out[r.Index] = *s
	}
	return out, nil
}

// TokenizeClient counts tokens with vLLM's POST /tokenize (at the server
// root, no /v1): {model, prompt, add_special_tokens} or the chat form
// {model, messages, add_generation_prompt} → {count, max_model_len, tokens}
// (vllm-project/vllm vllm/entrypoints/serve/tokenize/protocol.py).
type TokenizeClient struct {
	hc    *http.Client
	url   string
	model string
	key   string
}

// NewTokenizeClient returns a client for ep.
func NewTokenizeClient(ep config.Endpoint, hc *http.Client) *TokenizeClient {
	return &TokenizeClient{hc: hc, url: EndpointURL(ep.URL, "/tokenize"), model: ep.Model, key: ep.APIKey.Reveal()}
}

// Tokenize counts text's tokens without special tokens: arbor counts pieces
// of evidence that are later spliced into a prompt.
func (c *TokenizeClient) Tokenize(ctx context.Context, text string) (int, error) {
	return c.post(ctx, struct {
		Model             string `json:"model"`
		Prompt            string `json:"prompt"`
		AddSpecialTokens  bool   `json:"add_special_tokens"`
		ReturnTokenString bool   `json:"return_token_strs"`
	}{c.model, text, false, false})
}

// TokenizeChat counts a whole chat prompt as the model sees it: chat
// template applied, generation prompt added.
func (c *TokenizeClient) TokenizeChat(ctx context.Context, msgs []Message) (int, error) {
	return c.post(ctx, struct {
		Model               string    `json:"model"`
		Messages            []Message `json:"messages"`
		AddGenerationPrompt bool      `json:"add_generation_prompt"`
	}{c.model, msgs, true})
}

func (c *TokenizeClient) post(ctx context.Context, in any) (int, error) {
	var n int
	err := postJSON(ctx, c.hc, c.url, c.key, in, func(b []byte) (err error) {
		n, err = parseTokenize(b)
		return err
	})
	return n, redact(err, c.key)
}

// parseTokenize reads the count of a /tokenize reply (len(tokens) when a
// server leaves count out).
func parseTokenize(b []byte) (int, error) {
	var r struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, malformed("tokenize: %v", err)
	}
	switch {
	case r.Count != nil && *r.Count >= 0:
		return *r.Count, nil
	case r.Count == nil && r.Tokens != nil:
		return len(r.Tokens), nil
	}
	return 0, malformed("tokenize: reply has no valid count")
}

// ListModels returns the model ids an endpoint serves (GET /v1/models).
func ListModels(ctx context.Context, ep config.Endpoint, hc *http.Client) ([]string, error) {
	ex := &exchange{}
	l, err := newOpenAI(ep, hc).ListModels(withExchange(ctx, ex))
	if err != nil {
		return nil, redact(replyErr(ctx, ex, "models", err), ep.APIKey.Reveal())
	}
	ids := make([]string, len(l.Models))
	for i, m := range l.Models {
		ids[i] = m.ID
	}
	return ids, nil
}
