package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://host:8001":          "http://host:8001",
		"http://user@host":          "http://user@host",
		"http://user:key@host:1/v1": "http://user:[redacted]@host:1/v1",
		"https://u:p%40ss@h":        "https://u:[redacted]@h",
		"user:key@host":             "[redacted]@host",
		"http://u:k@h/%zz":          "http://[redacted]@h/%zz",
		"":                          "",
		"http://h:18001?token=X":    "http://h:18001?token=[redacted]",
		"http://h/v1?a=1&key=X&b":   "http://h/v1?a=[redacted]&key=[redacted]&[redacted]",
		"http://u:k@h?token=X#frag": "http://u:[redacted]@h?token=[redacted]#[redacted]",
		"h?token=X":                 "h?token=[redacted]",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSecretsInURLsAndValues: a password in an endpoint URL never reaches
// config show or the manifest's config map, and a malformed endpoints
// variable is not echoed in its error.
func TestSecretsInURLsAndValues(t *testing.T) {
	const pw = "pw-very-secret-42"
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("models:\n  chat:\n    endpoints: [{url: 'http://user:"+pw+"@127.0.0.1:9', model: m}]\n  judge:\n    endpoints: [{url: 'http://127.0.0.1:9/v1?token="+pw+"', model: m}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Models.Chat.Endpoints[0].URL != "http://user:"+pw+"@127.0.0.1:9" {
		t.Fatal("the config itself must keep the URL for requests")
	}
	y, _ := c.YAML()
	m, _ := c.Map()
	js, _ := json.Marshal(m)
	for _, s := range []string{string(y), string(js)} {
		if strings.Contains(s, pw) {
			t.Errorf("password leaked: %s", s)
		}
	}
	t.Setenv("ARBOR_MODELS_CHAT_ENDPOINTS", `[{url: "http://u:`+pw+`@h", model: m`)
	_, err = Load("", nil, nil)
	if err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("malformed endpoints variable: %v", err)
	}
}

// FuzzRedactURL: a query value never survives redaction, whatever comes
// before it, and redaction never panics.
func FuzzRedactURL(f *testing.F) {
	f.Add("http://h:18001", "s3cretvalue")
	f.Add("http://u:pw@h/v1?a=1", "another-secret")
	f.Add("h?x#frag", "zzzzzzz")
	f.Add("%zz://@@?", "qwertyu")
	f.Fuzz(func(t *testing.T, base, secret string) {
		if len(secret) < 6 || strings.ContainsAny(secret, "&#=?") || strings.Contains(base, secret) || strings.Contains("token", secret) {
			return
		}
		if out := RedactURL(base + "?token=" + secret); strings.Contains(out, secret) {
			t.Fatalf("RedactURL(%q) = %q keeps the query value", base+"?token="+secret, out)
		}
	})
}
