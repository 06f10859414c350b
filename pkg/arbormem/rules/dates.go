package rules

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
)

var MonthNames = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

var (
	reMonthDay = regexp.MustCompile(`(?i)\b([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b`)
	reDayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3})[a-z]*(?:,?\s+(\d{4}))?\b`)
	reRelDay   = regexp.MustCompile(`(?i)\b(today|tonight|this morning|yesterday|last night|(?:last|this past) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(\d+|a|one|two|three|four|five|six|seven) days? ago|last week)\b`)
)

// resolveDate turns a date phrase in text into a calendar date, using ref
// (the interaction's time) for the year and for relative phrases. ok is false
// when no date is found.
func resolveDate(text string, ref time.Time) (string, time.Time, bool) {
	if m := scanDateISO.FindString(text); m != "" {
		if t, ok := ops.ParseNormalized(ops.NormalizeDate(m)); ok {
			return m, t, true
		}
	}
	year := ref.Year()
	if ref.IsZero() {
		year = 0
	}
	mk := func(y int, mo time.Month, d int) (time.Time, bool) {
		if y == 0 || d < 1 || d > 31 {
			return time.Time{}, false
		}
		t := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
		if t.Month() != mo {
			return time.Time{}, false
		}
		return t, true
	}
	// Month-day ("May 3rd, 2024") and day-month ("3 May") forms: the
	// capture groups of the month and the day differ, the year is third.
	for _, f := range []struct {
		re         *regexp.Regexp
		month, day int
	}{{reMonthDay, 1, 2}, {reDayMonth, 2, 1}} {
		m := f.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		mo, ok := MonthNames[strings.ToLower(m[f.month])]
		if !ok {
			continue
		}
		d, _ := strconv.Atoi(m[f.day])
		y := year
		if m[3] != "" {
			y, _ = strconv.Atoi(m[3])
		}
		if t, ok := mk(y, mo, d); ok {
			return m[0], t, true
		}
	}
	if ref.IsZero() {
		return "", time.Time{}, false
	}
	if m := reRelDay.FindStringSubmatch(text); m != nil {
		day := time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
		p := strings.ToLower(m[1])
		switch {
		case p == "today" || p == "tonight" || p == "this morning":
			return m[0], day, true
		case p == "yesterday" || p == "last night":
			return m[0], day.AddDate(0, 0, -1), true
		case p == "last week":
			return m[0], day.AddDate(0, 0, -7), true
		case m[2] != "":
			back := (int(ref.Weekday()) - weekdayIndex(strings.ToLower(m[2])) + 7) % 7
			if back == 0 {
				back = 7
			}
			return m[0], day.AddDate(0, 0, -back), true
		default:
			n, err := strconv.Atoi(m[3])
			if err != nil {
				n = numberWords[strings.ToLower(m[3])]
				if strings.ToLower(m[3]) == "seven" {
					n = 7
				}
			}
			return m[0], day.AddDate(0, 0, -n), true
		}
	}
	return "", time.Time{}, false
}
