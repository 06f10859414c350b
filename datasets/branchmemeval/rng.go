package branchmemeval

import (
	"math/rand/v2"
	"strings"
)

// rng is the planner's only source of randomness; generation is a pure
// function of the seed because nothing iterates over a Go map.
type rng struct{ *rand.Rand }

func newRNG(seed int64, stream uint64) *rng {
	return &rng{rand.New(rand.NewPCG(uint64(seed), stream^0x9e3779b97f4a7c15))}
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.IntN(hi-lo+1)
}

func (r *rng) chance(p float64) bool { return r.Float64() < p }

// pick returns a random element of xs.
func pick[T any](r *rng, xs []T) T { return xs[r.IntN(len(xs))] }

// shuffled returns a shuffled copy of xs.
func shuffled[T any](r *rng, xs []T) []T {
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// vars resolves {name} placeholders in templates.
type vars func(name string) (string, bool)

// expand renders a template: "[a|b|c]" picks one alternative at random
// (alternatives may contain placeholders but not further brackets) and
// "{name}" is replaced through v. An unknown placeholder is a bug in the
// content tables, so it panics: generation runs it on every template in
// tests.
func (r *rng) expand(tmpl string, v vars) string { return tidy(r.expandRaw(tmpl, v)) }

func (r *rng) expandRaw(tmpl string, v vars) string {
	var b strings.Builder
	b.Grow(len(tmpl) + 32)
	for i := 0; i < len(tmpl); {
		switch c := tmpl[i]; c {
		case '[':
			j := strings.IndexByte(tmpl[i:], ']')
			if j < 0 {
				panic("branchmemeval: unbalanced [ in template: " + tmpl)
			}
			alts := strings.Split(tmpl[i+1:i+j], "|")
			b.WriteString(r.expandRaw(alts[r.IntN(len(alts))], v))
			i += j + 1
		case '{':
			j := strings.IndexByte(tmpl[i:], '}')
			if j < 0 {
				panic("branchmemeval: unbalanced { in template: " + tmpl)
			}
			name := tmpl[i+1 : i+j]
			s, ok := v(name)
			if !ok {
				panic("branchmemeval: unknown placeholder {" + name + "} in template: " + tmpl)
			}
			b.WriteString(s)
			i += j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// tidy repairs what optional alternatives leave behind: doubled spaces and
// spaces before punctuation, and a lower-case letter opening a sentence.
func tidy(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	for _, p := range []string{" ,", " .", " ?", " !", " :", " ;"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	s = strings.TrimSpace(s)
	return capFirst(s)
}

func capFirst(s string) string {
	if s == "" {
		return s
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		return string(c-'a'+'A') + s[1:]
	}
	return s
}
