package llm

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

func TestEmbedOrdersAndNormalises(t *testing.T) {
	fake := openaifake.New(openaifake.Options{Dim: 8})
	defer fake.Close()
	texts := []string{"alpha", "beta gamma", "delta"}
	note := &callNote{}
	ctx := context.WithValue(context.Background(), noteKey{}, note)
	vs, err := NewEmbedClient(endpoint(fake.URL), 8, NewHTTPClient()).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want, _ := normalise(openaifake.Vector(text, 8))
		for j := range want {
			if math.Abs(float64(vs[i][j]-want[j])) > 1e-6 {
				t.Fatalf("text %d: got %v, want %v", i, vs[i], want)
			}
		}
	}
	if note.prompt.Load() != 4 {
		t.Errorf("prompt tokens %d, want 4", note.prompt.Load())
	}
	var body struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	json.Unmarshal(fake.Bodies("/v1/embeddings")[0], &body)
	if strings.Join(body.Input, "|") != "alpha|beta gamma|delta" || body.Model != "fake-model" {
		t.Errorf("request %+v", body)
	}
}

func TestEmbedDimensionMismatch(t *testing.T) {
	fake := openaifake.New(openaifake.Options{Dim: 8})
	defer fake.Close()
	_, err := NewEmbedClient(endpoint(fake.URL), 1024, NewHTTPClient()).Embed(context.Background(), []string{"x"})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "models.embed.dim") {
		t.Fatalf("err %v", err)
	}
}

func TestRerankBothWireFormats(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	q := "where did Ana move"
	docs := []string{"the weather", "Ana moved to Lisbon", "where is Ana", "did Ana move where"}
	for _, api := range []string{"vllm", "tei"} {
		t.Run(api, func(t *testing.T) {
			got, err := NewRerankClient(endpoint(fake.URL), api, NewHTTPClient()).Rerank(context.Background(), q, docs)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range docs {
				if got[i] != openaifake.Score(q, d) {
					t.Errorf("doc %d: score %v, want %v", i, got[i], openaifake.Score(q, d))
				}
			}
		})
	}
	if fake.PathStats("/v1/rerank").Requests != 1 || fake.PathStats("/rerank").Requests != 1 {
		t.Errorf("vllm %d tei %d requests", fake.PathStats("/v1/rerank").Requests, fake.PathStats("/rerank").Requests)
	}
	var tei map[string]any
	json.Unmarshal(fake.Bodies("/rerank")[0], &tei)
	if _, ok := tei["texts"]; !ok || tei["raw_scores"] != true {
		t.Errorf("TEI body %v", tei)
	}
}

func TestTokenizeBothForms(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	// The configured URL may carry /v1; /tokenize lives at the root.
	c := NewTokenizeClient(endpoint(fake.URL+"/v1"), NewHTTPClient())
	n, err := c.Tokenize(context.Background(), "five words are right here")
	if err != nil || n != 5 {
		t.Fatalf("got %d, %v", n, err)
	}
	msgs := []Message{{Role: "user", Content: "two words"}}
	n, err = c.TokenizeChat(context.Background(), msgs)
	if want := openaifake.PromptTokens([]openaifake.Message{{Role: "user", Content: "two words"}}); err != nil || n != want {
		t.Fatalf("chat form: got %d, %v; want %d", n, err, want)
	}
	var body map[string]any
	json.Unmarshal(fake.Bodies("/tokenize")[0], &body)
	if body["add_special_tokens"] != false || body["model"] != "fake-model" {
		t.Errorf("body %v", body)
	}
}

func TestParseReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func() error
		ok   bool
	}{
		{"vllm ok", func() error {
			_, _, err := parseRerankVLLM([]byte(`{"results":[{"index":1,"relevance_score":0.2},{"index":0,"relevance_score":0.9}]}`), 2)
			return err
		}, true},
		{"vllm missing doc", func() error {
			_, _, err := parseRerankVLLM([]byte(`{"results":[{"index":1,"relevance_score":0.2}]}`), 2)
			return err
		}, false},
		{"vllm repeated index", func() error {
			_, _, err := parseRerankVLLM([]byte(`{"results":[{"index":1,"relevance_score":0.2},{"index":1,"relevance_score":0.3}]}`), 2)
			return err
		}, false},
		{"vllm no score", func() error { _, _, err := parseRerankVLLM([]byte(`{"results":[{"index":0}]}`), 1); return err }, false},
		{"tei ok", func() error { _, err := parseRerankTEI([]byte(`[{"index":0,"score":0.5}]`), 1); return err }, true},
		{"tei out of range", func() error { _, err := parseRerankTEI([]byte(`[{"index":3,"score":0.5}]`), 1); return err }, false},
		{"tei object", func() error { _, err := parseRerankTEI([]byte(`{"results":[]}`), 1); return err }, false},
		{"tokenize count", func() error { _, err := parseTokenize([]byte(`{"count":3,"tokens":[1,2,3]}`)); return err }, true},
		{"tokenize tokens only", func() error { _, err := parseTokenize([]byte(`{"tokens":[1,2]}`)); return err }, true},
		{"tokenize negative", func() error { _, err := parseTokenize([]byte(`{"count":-1}`)); return err }, false},
		{"tokenize empty", func() error { _, err := parseTokenize([]byte(`{}`)); return err }, false},
	} {
		err := tc.fn()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrMalformed)) {
			t.Errorf("%s: err %v", tc.name, err)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "1": time.Second, " 2 ": 2 * time.Second, "0.25": 250 * time.Millisecond, "-3": 0, "soon": 0, "1e9": 0,
		now.Add(3 * time.Second).Format(http1123): 3 * time.Second, now.Add(-time.Hour).Format(http1123): 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

func FuzzParseRerank(f *testing.F) {
	f.Add([]byte(`{"results":[{"index":0,"relevance_score":0.9}]}`), 1)
	f.Add([]byte(`[{"index":0,"score":1e400}]`), 1)
	f.Add([]byte(`[{"index":-1,"score":0}]`), 3)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = n % 64
		if n < 0 {
			n = -n
		}
		for _, s := range [][]float64{must(parseRerankTEI(b, n)), must2(parseRerankVLLM(b, n))} {
			if s != nil && len(s) != n {
				t.Fatalf("%d scores for %d docs", len(s), n)
			}
		}
	})
}

func must(s []float64, err error) []float64 {
	if err != nil {
		return nil
	}
	return s
}

func must2(s []float64, _ int, err error) []float64 { return must(s, err) }

func FuzzParseTokenize(f *testing.F) {
	f.Add([]byte(`{"count":3,"max_model_len":10,"tokens":[1,2,3]}`))
	f.Add([]byte(`{"tokens":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := parseTokenize(b); err == nil && n < 0 {
			t.Fatalf("negative count %d", n)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	f.Add("120")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT")
	f.Fuzz(func(t *testing.T, s string) {
		if d := parseRetryAfter(s, time.Now()); d < 0 || d > 24*time.Hour {
			t.Fatalf("%q gave %v", s, d)
		}
	})
}

func TestDisplayURLDropsCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:pw@host:8000/v1": "http://host:8000/v1",
		"https://h/v1?key=abc":        "https://h/v1",
		"http://h:" + strconv.Itoa(8): "http://h:8",
	} {
		if got := DisplayURL(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
