package ops

import (
	"math"
	"strconv"
	"strings"
)

// ParseNumber reads a decimal amount from a model's field: "2", "1,200",
// "$12.50", "0.333", "1/3".
func ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(strings.NewReplacer("$", "", "€", "", "£", "", ",", "", "%", "").Replace(s))
	if s == "" {
		return 0, false
	}
	if i := strings.IndexByte(s, '/'); i > 0 {
		a, e1 := strconv.ParseFloat(strings.TrimSpace(s[:i]), 64)
		b, e2 := strconv.ParseFloat(strings.TrimSpace(s[i+1:]), 64)
		if e1 == nil && e2 == nil && b != 0 {
			return math.Round(a/b*1000) / 1000, true
		}
		return 0, false
	}
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}
