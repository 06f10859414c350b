package ops

import (
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// normalizedLayouts are the two forms of the schema's normalized_date: the
// shared minute-precision layout models are shown, and a bare date.
var normalizedLayouts = []string{dialog.TimeLayout, "2006-01-02"}

// NormalizeDate keeps a model's normalized_date only when it is the schema's
// "YYYY-MM-DD" or "YYYY-MM-DD HH:MM" and a real date; otherwise "".
func NormalizeDate(s string) string {
	s = strings.TrimSpace(strings.Replace(s, "T", " ", 1))
	if len(s) > 16 {
		s = s[:16]
	}
	for _, layout := range normalizedLayouts {
		if len(s) == len(layout) {
			if _, err := time.Parse(layout, s); err == nil {
				return s
			}
		}
	}
	return ""
}

// ParseNormalized parses a normalized_date.
func ParseNormalized(s string) (time.Time, bool) {
	for _, layout := range normalizedLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// EventDate is the date an event happened: its normalized date when given,
// else the time of the interaction it was extracted from.
func EventDate(e *Event) time.Time {
	if t, ok := ParseNormalized(e.NormalizedDate); ok {
		return t
	}
	return e.Time
}
