package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValuesRefusedNamingTheKey: values that once loaded silently (or were
// silently replaced, truncated or wrapped) are refused with one line naming
// the key.
func TestValuesRefusedNamingTheKey(t *testing.T) {
	const ep = "models:\n  chat:\n    endpoints: [{url: 'http://127.0.0.1:9', model: m, %s}]\n"
	cases := []struct {
		name, yaml, key string
	}{
		{"negative temperature", "answer: {temperature: -3}\n", "answer.temperature"},
		{"negative judge temperature", "judge: {temperature: -0.5}\n", "judge.temperature"},
		{"negative bridge temperature", "bridges: {temperature: -1}\n", "bridges.temperature"},
		{"negative base delay", "retry: {base_delay: -1s}\n", "retry.base_delay"},
		{"negative max delay", "retry: {max_delay: -10s}\n", "retry.max_delay"},
		{"negative eject_for", "retry: {eject_for: -1m}\n", "retry.eject_for"},
		{"fractional budget", "answer: {budget: 4096.7}\n", "answer.budget"},
		{"huge budget", "answer: {budget: 99999999999999999999}\n", "answer.budget"},
		{"fractional max_tokens", "answer: {max_tokens: 12.5}\n", "answer.max_tokens"},
		{"huge seed", "run: {seed: 1e30}\n", "run.seed"},
		{"zero max_inflight", strings.Replace(ep, "%s", "max_inflight: 0", 1), "max_inflight"},
		{"negative max_inflight", strings.Replace(ep, "%s", "max_inflight: -3", 1), "max_inflight"},
		{"negative timeout", strings.Replace(ep, "%s", "timeout: -1s", 1), "timeout"},
		{"zero timeout", strings.Replace(ep, "%s", "timeout: 0s", 1), "timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(file, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(file, nil, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.key) || strings.Contains(msg, "\n") {
				t.Fatalf("want one line naming %s, got %q", c.key, msg)
			}
			if strings.Contains(msg, "-9223372036854775808") {
				t.Fatalf("a wrapped number in the error: %q", msg)
			}
		})
	}
	// What the refusals must not catch: whole floats, endpoints that leave
	// the defaults out, zero temperatures and delays.
	file := filepath.Join(t.TempDir(), "ok.yaml")
	ok := "answer: {budget: 4096.0, temperature: 0}\nretry: {base_delay: 0s}\n" + strings.Replace(ep, ", %s", "", 1)
	if err := os.WriteFile(file, []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Answer.Budget != 4096 || c.Models.Chat.Endpoints[0].MaxInflight != 8 || c.Models.Chat.Endpoints[0].Timeout <= 0 {
		t.Errorf("defaults not applied: budget %d, endpoint %+v", c.Answer.Budget, c.Models.Chat.Endpoints[0])
	}
}

// TestEnvRefusedNamingTheKey: the same through ARBOR_* variables, and a
// variable whose section is misspelt is refused naming the one meant.
func TestEnvRefusedNamingTheKey(t *testing.T) {
	cases := []struct {
		env, value, want string
	}{
		{"ARBOR_ANSWR_BUDGET", "4096", "ARBOR_ANSWER_BUDGET"},
		{"ARBOR_ARBORMME_TAU", "8", "ARBOR_ARBORMEM_TAU"},
		{"ARBOR_RETYR_BASE_DELAY", "1s", "ARBOR_RETRY_BASE_DELAY"},
		{"ARBOR_ANSWER_BUDGET", "4096.7", "answer.budget"},
		{"ARBOR_ANSWER_TEMPERATURE", "-3", "answer.temperature"},
		{"ARBOR_RETRY_BASE_DELAY", "-1s", "retry.base_delay"},
		{"ARBOR_MODELS_CHAT_ENDPOINTS", "[{url: 'http://h:1', model: m, max_inflight: 0}]", "max_inflight"},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			_, err := Load("", nil, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want one line naming %s, got %v", c.want, err)
			}
		})
	}
	// Other ARBOR_* variables (test switches, sidecar keys) are not config.
	for _, name := range []string{"ARBOR_LARGE", "ARBOR_CRASH_KILLS", "ARBOR_SOAK_EPISODES", "ARBOR_TEST_MAIN", "ARBOR_HEAP_TURNS"} {
		t.Setenv(name, "1")
	}
	if _, err := Load("", nil, nil); err != nil {
		t.Errorf("test switches refused: %v", err)
	}
}
