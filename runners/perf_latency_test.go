package runners

import (
	"strings"
	"testing"
	"time"
)

func TestParseLatencies(t *testing.T) {
	const def = 200 * time.Millisecond
	cases := []struct {
		in    string
		chat  time.Duration
		roles map[string]time.Duration
		err   string
	}{
		{"", def, nil, ""},
		{"50ms", 50 * time.Millisecond, nil, ""},
		{"chat=200ms,embed=20ms,rerank=30ms", def, map[string]time.Duration{"chat": def, "embed": 20 * time.Millisecond, "rerank": 30 * time.Millisecond}, ""},
		{" embed = 5ms ", def, map[string]time.Duration{"embed": 5 * time.Millisecond}, ""},
		{"chat=1s", time.Second, map[string]time.Duration{"chat": time.Second}, ""},
		{"gpu=1s", 0, nil, "unknown role"},
		{"chat=1s,chat=2s", 0, nil, "given twice"},
		{"chat=-1s", 0, nil, "positive"},
		{"0s", 0, nil, "positive"},
		{"embed", 0, nil, "invalid duration"},
		{"=1s", 0, nil, "not role=duration"},
		{"chat=fast", 0, nil, "invalid duration"},
	}
	for _, c := range cases {
		chat, roles, err := ParseLatencies(c.in, def)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || chat != c.chat || len(roles) != len(c.roles) {
			t.Errorf("%q: %v %v %v, want %v %v", c.in, chat, roles, err, c.chat, c.roles)
			continue
		}
		for k, v := range c.roles {
			if roles[k] != v {
				t.Errorf("%q: %s = %v, want %v", c.in, k, roles[k], v)
			}
		}
	}
}

// FuzzParseLatencies: any input either fails or gives positive latencies
// for known roles only.
func FuzzParseLatencies(f *testing.F) {
	for _, s := range []string{"", "200ms", "chat=200ms,embed=20ms,rerank=30ms", "embed=1h", "x=y", ",,", "chat=1s,chat=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		chat, roles, err := ParseLatencies(s, time.Second)
		if err != nil {
			return
		}
		if chat <= 0 {
			t.Fatalf("%q: chat latency %v", s, chat)
		}
		for role, d := range roles {
			if d <= 0 || !strings.Contains(strings.Join(perfRoles, ","), role) {
				t.Fatalf("%q: %s = %v", s, role, d)
			}
		}
	})
}
