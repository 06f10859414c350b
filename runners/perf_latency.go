package runners

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ParseLatencies reads arbor perf's --latency: one duration for every
// model call ("200ms"), or per role ("chat=200ms,embed=20ms,rerank=30ms"),
// since an embedding call is not a chat call. It returns L, the chat
// latency (def when chat is not named), and the other roles' latencies.
func ParseLatencies(s string, def time.Duration) (time.Duration, map[string]time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil, nil
	}
	if !strings.Contains(s, "=") {
		d, err := positiveDuration(s)
		if err != nil {
			return 0, nil, fmt.Errorf("--latency %q: %w", s, err)
		}
		return d, nil, nil
	}
	chat := def
	roles := map[string]time.Duration{}
	for _, part := range strings.Split(s, ",") {
		role, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		role = strings.TrimSpace(role)
		if !ok || role == "" {
			return 0, nil, fmt.Errorf("--latency %q: %q is not role=duration", s, part)
		}
		if !slices.Contains(perfRoles, role) {
			return 0, nil, fmt.Errorf("--latency %q: unknown role %q (one of %s)", s, role, strings.Join(perfRoles, ", "))
		}
		if _, dup := roles[role]; dup {
			return 0, nil, fmt.Errorf("--latency %q: role %q given twice", s, role)
		}
		d, err := positiveDuration(strings.TrimSpace(val))
		if err != nil {
			return 0, nil, fmt.Errorf("--latency %q: %s: %w", s, role, err)
		}
		roles[role] = d
		if role == "chat" {
			chat = d
		}
	}
	return chat, roles, nil
}

func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("latency must be positive, got %s", d)
	}
	return d, nil
}
