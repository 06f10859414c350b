package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestBudgetInputs reads the same budget spellings from a flag-like string,
// a YAML file and an ARBOR_* variable: each means one number everywhere, and
// zero, negative and malformed budgets are refused in each.
func TestBudgetInputs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: refused
	}{
		{"32k", 30968}, {"32K", 30968}, {"30968", 30968}, {"4k", 4096}, {"4096", 4096},
		{"32768", 32768}, {"256", 256}, {"0", 0}, {"-5", 0}, {"0k", 0}, {"many", 0}, {"", 0},
	} {
		t.Run(tc.in, func(t *testing.T) {
			n, err := ParseBudget(tc.in)
			if (err == nil) != (tc.want != 0) || n != tc.want {
				t.Errorf("flag: ParseBudget(%q) = %d, %v; want %d", tc.in, n, err, tc.want)
			}
			file := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(file, []byte("answer: {budget: \""+tc.in+"\"}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(file, nil, nil)
			if tc.want == 0 {
				if err == nil || !strings.Contains(err.Error(), "answer.budget") {
					t.Errorf("yaml %q: %v, want an error naming answer.budget", tc.in, err)
				}
			} else if err != nil || c.Answer.Budget != tc.want {
				t.Errorf("yaml %q: %v, %v; want %d", tc.in, c, err, tc.want)
			}
			if tc.in == "" {
				return // an empty variable is an unset one
			}
			t.Setenv("ARBOR_ANSWER_BUDGET", tc.in)
			c, err = Load("", nil, nil)
			if tc.want == 0 {
				if err == nil || !strings.Contains(err.Error(), "answer.budget") {
					t.Errorf("env %q: %v, want an error naming answer.budget", tc.in, err)
				}
			} else if err != nil || c.Answer.Budget != tc.want {
				t.Errorf("env %q: budget %v, %v; want %d", tc.in, c, err, tc.want)
			}
		})
	}
}

// TestBudgetLabelsAreUnique: every budget's label reads back to the same
// number, so no two budgets share a label.
func TestBudgetLabelsAreUnique(t *testing.T) {
	seen := map[string]int{}
	for _, b := range []int{1, 100, 256, 512, 1000, 1024, 2048, 3000, 4096, 8192, 16384, 30968, 32768, 65536, 100000} {
		l := BudgetLabel(b)
		if o, dup := seen[l]; dup {
			t.Errorf("budgets %d and %d share the label %q", o, b, l)
		}
		seen[l] = b
		if n, err := ParseBudget(l); err != nil || n != b {
			t.Errorf("BudgetLabel(%d) = %q reads back as %d, %v", b, l, n, err)
		}
	}
	if BudgetLabel(30968) != "32K" || BudgetLabel(32768) != "32768" || BudgetLabel(4096) != "4K" {
		t.Errorf("labels: %s %s %s", BudgetLabel(30968), BudgetLabel(32768), BudgetLabel(4096))
	}
}

func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"32k", "4096", "-1", "0", "1k", "99999999999k", " 8K "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBudget(s)
		if err == nil && n <= 0 {
			t.Fatalf("ParseBudget(%q) = %d without error", s, n)
		}
	})
}

// TestInputsThatMeanOneThing: each input is refused with one line naming
// the key (and the file or variable), or accepted with the meaning stated.
func TestInputsThatMeanOneThing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		file string
		env  map[string]string
		want []string // substrings of the error
	}{
		{"duration without unit", write("d.yaml", "retry: {base_delay: 30}\n"), nil, []string{"retry.base_delay", "unit"}},
		{"env duration without unit", "", map[string]string{"ARBOR_RETRY_MAX_DELAY": "10"}, []string{"retry.max_delay", "unit"}},
		{"unknown env", "", map[string]string{"ARBOR_ANSWER_BUGDET": "3"}, []string{"ARBOR_ANSWER_BUGDET", "no config key"}},
		{"section as string", write("s.yaml", "models: {chat: openai}\n"), nil, []string{"s.yaml", "models.chat", "section"}},
		{"section as bool", write("b.yaml", "cache: false\n"), nil, []string{"b.yaml", `"cache"`, "section"}},
		{"section as number", write("n.yaml", "answer: 5\n"), nil, []string{"n.yaml", `"answer"`}},
		{"zero dim", write("z.yaml", "models: {embed: {dim: 0}}\n"), nil, []string{"models.embed.dim"}},
		{"negative candidates", write("c.yaml", "arbormem: {semantic_candidates: -1}\n"), nil, []string{"arbormem.semantic_candidates"}},
		{"zero max tokens", write("m.yaml", "answer: {max_tokens: 0}\n"), nil, []string{"answer.max_tokens"}},
		{"zero attempts", write("r.yaml", "retry: {max_attempts: 0}\n"), nil, []string{"retry.max_attempts"}},
		{"negative workers", "", map[string]string{"ARBOR_RUN_WORKERS": "-2"}, []string{"run.workers"}},
		{"nan tau", write("t.yaml", "arbormem: {tau: .nan}\n"), nil, []string{"arbormem.tau", "finite"}},
		{"zero budget", write("zb.yaml", "answer: {budget: 0}\n"), nil, []string{"answer.budget"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Load(tc.file, nil, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestConfigFromEnvironmentAndWarnings: ARBOR_CONFIG names the file; a
// config with only chat set warns that the other roles stay offline; an
// unset api_key_env is a warning, not an error.
func TestConfigFromEnvironmentAndWarnings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	body := "models:\n  chat:\n    endpoints: [{url: 'http://127.0.0.1:9', model: m, api_key_env: ARBOR_TEST_UNSET_KEY}]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARBOR_CONFIG", file)
	c, err := Load("", pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source != file || c.Models.Chat.Local() {
		t.Fatalf("ARBOR_CONFIG not read: source %q, chat %+v", c.Source, c.Models.Chat)
	}
	all := strings.Join(c.Warnings, "\n")
	for _, w := range []string{"ARBOR_TEST_UNSET_KEY is not set", "judge, embed, rerank stay offline"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings %q do not say %q", c.Warnings, w)
		}
	}
	t.Setenv("ARBOR_CONFIG", "")
	if c, err := Load("", nil, nil); err != nil || len(c.Warnings) > 0 {
		t.Errorf("offline default: %v, warnings %q", err, c.Warnings)
	}
}
