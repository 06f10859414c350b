package runners

import (
	"slices"
	"testing"
)

func FuzzParseVariants(f *testing.F) {
	for _, s := range []string{"ce-logit,ce-scaled,tau=6,tau=10", "reference,no-rerank-instruction", ",,tau=8,tau=8", " ce-scaled , reference "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs := ParseVariants(s)
		if len(vs) == 0 || vs[0] != "" {
			t.Fatalf("%q: %q does not start with the reference", s, vs)
		}
		for i, v := range vs {
			if slices.Contains(vs[:i], v) || v == "reference" {
				t.Fatalf("%q: %q repeats or names the reference", s, vs)
			}
		}
	})
}

func TestParseVariants(t *testing.T) {
	if got := ParseVariants("ce-scaled, tau=6,reference,tau=6"); !slices.Equal(got, []string{"", "ce-scaled", "tau=6"}) {
		t.Errorf("%q", got)
	}
	if err := checkVariants([]string{"arbormem"}, ParseVariants("ce-logit,ce-scaled,no-rerank-instruction,tau=6,tau=10")); err != nil {
		t.Error(err)
	}
	if err := checkVariants([]string{"arbormem"}, ParseVariants("tau=abc")); err == nil {
		t.Error("tau=abc accepted")
	}
}
