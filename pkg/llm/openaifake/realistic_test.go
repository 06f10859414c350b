package openaifake

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// rerankScores posts a rerank request and returns the scores by document index.
func rerankScores(t *testing.T, s *Server, path, body string) map[int]float64 {
	t.Helper()
	resp, text := post(t, s.URL+path, body)
	if resp == nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %s", path, text)
	}
	out := map[int]float64{}
	if path == "/rerank" {
		var rs []struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(text), &rs); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			out[r.Index] = r.Score
		}
		return out
	}
	var v struct {
		Results []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Results {
		out[r.Index] = r.Score
	}
	return out
}

func TestRerankScales(t *testing.T) {
	const tei = `{"query":"paris capital france","texts":["paris is the capital of france","flour and sugar"],"raw_scores":true}`
	const teiProb = `{"query":"paris capital france","texts":["paris is the capital of france","flour and sugar"]}`
	const vllm = `{"query":"paris capital france","documents":["paris is the capital of france","flour and sugar"]}`
	isLogit := func(m map[int]float64) bool { return m[0] > 5 && m[1] < -5 }
	isProb := func(m map[int]float64) bool { return m[0] > 0.99 && m[0] <= 1 && m[1] >= 0 && m[1] < 0.01 }
	cases := []struct {
		scale, path, body string
		want              func(map[int]float64) bool
	}{
		{RerankAsAsked, "/rerank", tei, isLogit},
		{RerankAsAsked, "/rerank", teiProb, isProb},
		{RerankAsAsked, "/v1/rerank", vllm, isProb},
		{RerankProbability, "/rerank", tei, isProb},
		{RerankLogit, "/v1/rerank", vllm, isLogit},
		{RerankLexical, "/rerank", tei, func(m map[int]float64) bool { return m[0] == 1 && m[1] == 0 }},
	}
	for _, c := range cases {
		s := New(Options{RerankScale: c.scale})
		if got := rerankScores(t, s, c.path, c.body); !c.want(got) {
			t.Errorf("scale %q %s: scores %v", c.scale, c.path, got)
		}
		s.Close()
	}
	if _, err := ParseRerankScale("sigmoid"); err == nil {
		t.Error("ParseRerankScale accepted an unknown scale")
	}
}

func TestCrossEncoderLogitScale(t *testing.T) {
	prev := math.Inf(-1)
	for i := 0; i <= 100; i++ {
		l := CrossEncoderLogit(float64(i) / 100)
		if l < prev || l < -10 || l > 10 {
			t.Fatalf("share %d%%: logit %v (previous %v): want monotone in [-10, 10]", i, l, prev)
		}
		prev = l
	}
	if l := CrossEncoderLogit(0.86); l < 8 {
		t.Errorf("a passage covering the query scores %v, below the paper's τ = 8", l)
	}
}

func chatContent(t *testing.T, s *Server, body string) string {
	t.Helper()
	resp, text := post(t, s.URL+"/v1/chat/completions", body)
	if resp == nil || resp.StatusCode != 200 {
		t.Fatalf("chat: %s", text)
	}
	var v struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || len(v.Choices) == 0 {
		t.Fatalf("chat: %s", text)
	}
	return v.Choices[0].Message.Content
}

func TestThinkingHonoursTemplateKwargs(t *testing.T) {
	s := New(Options{Thinking: true})
	defer s.Close()
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	if c := chatContent(t, s, `{`+msgs+`}`); !strings.HasPrefix(c, "<think>") || !strings.HasSuffix(c, "echo: hi") {
		t.Errorf("thinking on by default: %q", c)
	}
	if c := chatContent(t, s, `{`+msgs+`,"chat_template_kwargs":{"enable_thinking":false}}`); c != "echo: hi" {
		t.Errorf("enable_thinking false: %q", c)
	}
	plain := New(Options{})
	defer plain.Close()
	if c := chatContent(t, plain, `{`+msgs+`}`); c != "echo: hi" {
		t.Errorf("no thinking switch: %q", c)
	}
}

func TestEmbedUnnormalisedAndTokenizerSkew(t *testing.T) {
	s := New(Options{Dim: 8, EmbedUnnormalised: true, TokenizerSkew: 0.5, CountPrompt: CountTokens})
	defer s.Close()
	_, text := post(t, s.URL+"/v1/embeddings", `{"input":["one","two words"]}`)
	var v struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || len(v.Data) != 2 {
		t.Fatalf("embeddings: %s", text)
	}
	for _, d := range v.Data {
		var n float64
		for _, x := range d.Embedding {
			n += x * x
		}
		if n = math.Sqrt(n); n < 1.9 || n > 6.1 {
			t.Errorf("unnormalised norm %v, want 2…6", n)
		}
	}
	_, text = post(t, s.URL+"/tokenize", `{"prompt":"a b c d"}`)
	if !strings.Contains(text, `"count":6`) {
		t.Errorf("skewed count of 4 words at +50%%: %s", text)
	}
}
