package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEmbeddedDefaultMatchesConfigsDir(t *testing.T) {
	b, err := os.ReadFile("../../configs/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, DefaultYAML()) {
		t.Fatal("pkg/config/default.yaml differs from configs/default.yaml: run `go generate ./pkg/config`")
	}
}

func TestDefaultsArePaperValues(t *testing.T) {
	c, err := Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Answer.Budget != 30968 || c.Answer.MaxTokens != 512 || c.Answer.MaxContext != 40960 || c.Answer.Temperature != 0 {
		t.Fatalf("answer defaults: %+v", c.Answer)
	}
	if !reflect.DeepEqual(c.ArborMem, DefaultArborMem()) {
		t.Fatalf("configs/default.yaml arbormem section differs from DefaultArborMem():\n%+v\n%+v", c.ArborMem, DefaultArborMem())
	}
	if !reflect.DeepEqual(c.Baselines, DefaultBaselines()) {
		t.Fatalf("baselines: %+v", c.Baselines)
	}
	if !c.Models.Chat.Local() || c.Models.Tokenizer.Provider != "qwen3" {
		t.Fatalf("default must be offline: %+v", c.Models)
	}
}

// Every leaf key must be settable through ARBOR_<KEY> even when no file
// mentions it (viper ignores unbound env vars on Unmarshal).
func TestEveryKeySettableByEnvironment(t *testing.T) {
	for _, key := range Keys() {
		env := "ARBOR_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		val, check := envValue(t, key)
		if val == "" {
			continue
		}
		t.Run(key, func(t *testing.T) {
			t.Setenv(env, val)
			c, err := Load("", nil, nil)
			if err != nil {
				t.Fatalf("%s=%s: %v", env, val, err)
			}
			check(c)
		})
	}
}

// envValue returns a non-default value for key and a check that it arrived.
func envValue(t *testing.T, key string) (string, func(*Config)) {
	c, _ := Load("", nil, nil)
	f := fieldByKey(reflect.ValueOf(c).Elem(), key)
	switch {
	case strings.HasSuffix(key, ".provider"):
		if strings.HasPrefix(key, "models.tokenizer") {
			return "local", func(c *Config) {
				if got := fieldByKey(reflect.ValueOf(c).Elem(), key).String(); got != "local" {
					t.Fatalf("%s = %q", key, got)
				}
			}
		}
		return "local", func(*Config) {}
	case strings.HasSuffix(key, ".endpoints"):
		return `[{url: "http://127.0.0.1:9/", model: m, max_inflight: 3}]`, func(c *Config) {
			eps := fieldByKey(reflect.ValueOf(c).Elem(), key).Interface().([]Endpoint)
			if len(eps) != 1 || eps[0].URL != "http://127.0.0.1:9" || eps[0].MaxInflight != 3 {
				t.Fatalf("%s = %+v", key, eps)
			}
		}
	case strings.HasPrefix(key, "bridges.") && strings.HasSuffix(key, ".command"):
		return `[python3, /tmp/sidecar.py]`, func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Interface().([]string); len(got) != 2 || got[1] != "/tmp/sidecar.py" {
				t.Fatalf("%s = %q", key, got)
			}
		}
	case strings.HasPrefix(key, "bridges.") && strings.HasSuffix(key, ".options"):
		return `{driver: neo4j, every: 3}`, func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Interface().(map[string]any); got["driver"] != "neo4j" || got["every"] != 3 {
				t.Fatalf("%s = %v", key, got)
			}
		}
	case strings.HasPrefix(key, "bridges.") && strings.HasSuffix(key, ".embedder"):
		if key != "bridges.amem.embedder" && key != "bridges.licomemory.embedder" {
			return "", nil // role only: native is refused (TestBridgeEmbedderValues)
		}
		return "native", func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).String(); got != "native" {
				t.Fatalf("%s = %q", key, got)
			}
		}
	case key == "models.rerank.api":
		return "tei", func(c *Config) {
			if c.Models.Rerank.API != "tei" {
				t.Fatal(c.Models.Rerank.API)
			}
		}
	case key == "models.rerank.scores":
		return "logit", func(c *Config) {
			if c.Models.Rerank.Scores != "logit" || !c.Models.Rerank.RerankLogits() {
				t.Fatal(c.Models.Rerank.Scores)
			}
		}
	case key == "answer.answerer" || key == "arbormem.extractors" || key == "baselines.summaries":
		return "heuristic", func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).String(); got != "heuristic" {
				t.Fatalf("%s = %q", key, got)
			}
		}
	case key == "report.interval" || key == "report.ci" || strings.HasPrefix(key, "report.cluster."):
		want := map[string]string{"report.interval": "basic", "report.ci": "interval"}[key]
		if want == "" {
			want = "question"
			if key == "report.cluster.longmemeval" {
				want = "episode"
			}
		}
		return want, func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).String(); got != want {
				t.Fatalf("%s = %q, want %q", key, got, want)
			}
		}
	case key == "report.level" || key == "report.mde_power":
		return "0.9", func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Float(); got != 0.9 {
				t.Fatalf("%s = %v", key, got)
			}
		}
	case key == "judge.beam_scoring":
		return "official", func(c *Config) {
			if c.Judge.BEAMScoring != "official" {
				t.Fatal(c.Judge.BEAMScoring)
			}
		}
	case key == "arbormem.anchor_trigger":
		return "explicit", func(c *Config) {
			if c.ArborMem.AnchorTrigger != "explicit" {
				t.Fatal(c.ArborMem.AnchorTrigger)
			}
		}
	case key == "answer.template":
		return "harness", func(c *Config) {
			if c.Answer.Template != "harness" {
				t.Fatal(c.Answer.Template)
			}
		}
	case key == "run.bundles":
		return "trace", func(c *Config) {
			if c.Run.Bundles != "trace" {
				t.Fatal(c.Run.Bundles)
			}
		}
	case key == "serve.tokens":
		return "[{token: t0ken, scopes: [alice]}]", func(c *Config) {
			if len(c.Serve.Tokens) != 1 || c.Serve.Tokens[0].Token.Reveal() != "t0ken" || c.Serve.Tokens[0].Scopes[0] != "alice" {
				t.Fatalf("serve.tokens = %+v", c.Serve.Tokens)
			}
		}
	case key == "judge.mode":
		return "lexical", func(c *Config) {
			if c.Judge.Mode != "lexical" {
				t.Fatal(c.Judge.Mode)
			}
		}
	case key == "judge.parse":
		return "official", func(c *Config) {
			if c.Judge.Parse != "official" {
				t.Fatal(c.Judge.Parse)
			}
		}
	case key == "answer.enable_thinking":
		return "true", func(c *Config) {
			if c.Answer.EnableThinking == nil || !*c.Answer.EnableThinking {
				t.Fatal("enable_thinking not set")
			}
		}
	}
	switch f.Kind() {
	case reflect.Int, reflect.Int64:
		if f.Type() == reflect.TypeOf(time.Duration(0)) {
			return "1m30s", func(c *Config) {
				if d := fieldByKey(reflect.ValueOf(c).Elem(), key).Interface().(time.Duration); d != 90*time.Second {
					t.Fatalf("%s = %v", key, d)
				}
			}
		}
		want := f.Int() + 7
		return fmt.Sprint(want), func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Int(); got != want {
				t.Fatalf("%s = %d, want %d", key, got, want)
			}
		}
	case reflect.Float64:
		want := f.Float() + 0.25
		return fmt.Sprint(want), func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Float(); got != want {
				t.Fatalf("%s = %v, want %v", key, got, want)
			}
		}
	case reflect.Bool:
		want := !f.Bool()
		return fmt.Sprint(want), func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).Bool(); got != want {
				t.Fatalf("%s = %v, want %v", key, got, want)
			}
		}
	case reflect.Map:
		return "{locomo: 64}", func(c *Config) {
			if got := fieldByKey(reflect.ValueOf(c).Elem(), key).MapIndex(reflect.ValueOf("locomo")); !got.IsValid() || got.Int() != 64 {
				t.Fatalf("%s = %v, want {locomo: 64}", key, fieldByKey(reflect.ValueOf(c).Elem(), key))
			}
		}
	case reflect.String:
		return "/tmp/arbor-env-test", func(c *Config) {
			got := fieldByKey(reflect.ValueOf(c).Elem(), key).String()
			if key == "prompts_dir" || key == "cache.dir" || key == "run.results" {
				if !strings.HasPrefix(got, "/tmp/arbor-env-test") {
					t.Fatalf("%s = %q", key, got)
				}
			}
		}
	}
	t.Fatalf("no test value for key %s (kind %s): extend envValue", key, f.Kind())
	return "", nil
}

func fieldByKey(v reflect.Value, key string) reflect.Value {
	for _, part := range strings.Split(key, ".") {
		t := v.Type()
		found := false
		for i := 0; i < t.NumField(); i++ {
			if strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0] == part {
				v = v.Field(i)
				found = true
				break
			}
		}
		if !found {
			panic("no field for " + key)
		}
	}
	return v
}

func TestBadConfigErrorsNameKeyAndFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	cases := []struct {
		name, file string
		env        map[string]string
		want       []string
	}{
		{"unknown top-level key", write("a.yaml", "answr: {budget: 3}\n"), nil, []string{"a.yaml", `unknown key "answr"`}},
		{"unknown nested key", write("b.yaml", "models:\n  chat:\n    endpoints:\n      - {url: 'http://x', modle: m}\n"), nil, []string{"b.yaml", "modle"}},
		{"wrong type", write("c.yaml", "answer:\n  max_tokens: lots\n"), nil, []string{"c.yaml", "answer.max_tokens", "int"}},
		{"missing file", filepath.Join(dir, "nope.yaml"), nil, []string{"nope.yaml", "no such file"}},
		{"bad yaml", write("d.yaml", "answer: [\n"), nil, []string{"d.yaml"}},
		{"bad url", write("e.yaml", "models:\n  chat:\n    provider: openai\n    endpoints: [{url: 'localhost:8001', model: m}]\n"), nil, []string{"e.yaml", "models.chat.endpoints[0].url", "http://"}},
		{"openai without endpoints", write("f.yaml", "models:\n  judge: {provider: openai}\n"), nil, []string{"f.yaml", "models.judge"}},
		{"bad env value", "", map[string]string{"ARBOR_ANSWER_BUDGET": "many"}, []string{"ARBOR_", "answer.budget"}},
		{"bad enum", write("g.yaml", "judge: {mode: gpt}\n"), nil, []string{"g.yaml", "judge.mode", "lexical"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := Load(c.file, nil, nil)
			if err == nil {
				t.Fatal("want error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("error must be one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	const key = "sk-very-secret-0123456789"
	t.Setenv("ARBOR_TEST_KEY", key)
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("models:\n  chat:\n    endpoints:\n      - {url: 'http://127.0.0.1:9', model: m, api_key_env: ARBOR_TEST_KEY}\n  judge:\n    endpoints:\n      - {url: 'http://127.0.0.1:9', model: m, api_key: inline-secret-xyz}\n"), 0o644)
	c, err := Load(p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Models.Chat.Endpoints[0].APIKey.Reveal() != key {
		t.Fatal("key not resolved from the environment")
	}
	y, _ := c.YAML()
	for _, form := range []string{string(y), fmt.Sprintf("%v %+v %#v %s", c, c, c, c.Models.Chat.Endpoints[0].APIKey)} {
		if strings.Contains(form, key) || strings.Contains(form, "inline-secret-xyz") {
			t.Fatalf("secret leaked: %s", form)
		}
	}
	if !strings.Contains(string(y), "[redacted]") {
		t.Fatal("redaction marker missing")
	}
}

// TestBridgeEmbedderValues: the A-MEM and LiCoMemory bridges default to the
// embed role and switch to their native embedders; Mem0 and Graphiti have
// no native switch; anything else is refused naming the key.
func TestBridgeEmbedderValues(t *testing.T) {
	c, err := Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, nb := range c.Bridges.All() {
		if nb.Bridge.Embedder != EmbedderRole {
			t.Errorf("bridges.%s.embedder = %q, want role by default", nb.Name, nb.Bridge.Embedder)
		}
	}
	for _, bad := range []struct{ yaml, want string }{
		{"bridges: {mem0: {embedder: native}}\n", "bridges.mem0.embedder: mem0 always embeds through the embed role"},
		{"bridges: {graphiti: {embedder: native}}\n", "bridges.graphiti.embedder"},
		{"bridges: {amem: {embedder: minilm}}\n", `bridges.amem.embedder: "minilm" is not one of role, native`},
	} {
		if _, err := LoadYAML([]byte(bad.yaml), "test.yaml", nil, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want %q", strings.TrimSpace(bad.yaml), err, bad.want)
		}
	}
	c, err = LoadYAML([]byte("bridges: {amem: {embedder: native}, licomemory: {embedder: native}}\n"), "test.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Bridges.AMem.Embedder != EmbedderNative || c.Bridges.LiCoMemory.Embedder != EmbedderNative || c.Bridges.Mem0.Embedder != EmbedderRole {
		t.Errorf("embedders %q %q %q", c.Bridges.AMem.Embedder, c.Bridges.LiCoMemory.Embedder, c.Bridges.Mem0.Embedder)
	}
}
