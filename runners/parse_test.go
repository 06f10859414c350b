package runners

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		err  bool
	}{
		{"", Shard{}, false},
		{"1/2", Shard{1, 2}, false},
		{"4/4", Shard{4, 4}, false},
		{"0/2", Shard{}, true},
		{"3/2", Shard{}, true},
		{"1/0", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
		{"-1/2", Shard{}, true},
	} {
		got, err := ParseShard(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "k/n") {
			t.Errorf("ParseShard(%q): error %q does not say what is expected", c.in, err)
		}
	}
}

func TestParseBudget(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		err  bool
	}{
		{"4096", 4096, false},
		{"4k", 4096, false},
		{" 2K ", 2048, false},
		{"32k", PaperBudget32K, false}, // appendix C.4: the exact 30,968
		{"32768", 32768, false},
		{"0", 0, true}, // an empty budget answers nothing
		{"-1", 0, true},
		{"k", 0, true},
		{"4kk", 0, true},
		{"", 0, true},
	} {
		got, err := ParseBudget(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseBudget(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"", "1/2", "3/2", "0/0", "1/", "/1", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil || s == "" {
			return
		}
		if sh.K < 1 || sh.K > sh.N {
			t.Fatalf("ParseShard(%q) accepted %v", s, sh)
		}
		if back, err := ParseShard(sh.String()); err != nil || back != sh {
			t.Fatalf("%v does not round-trip: %v, %v", sh, back, err)
		}
	})
}

func FuzzParseBudgets(f *testing.F) {
	for _, s := range []string{"256,512,1k", "32k", ",,", "4k,-1", "9223372036854775807k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bs, err := ParseBudgets(s)
		if err != nil {
			return
		}
		for _, b := range bs {
			if b < 0 {
				t.Fatalf("ParseBudgets(%q) accepted a negative budget %d", s, b)
			}
		}
	})
}

func TestParsePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  bool
	}{
		{"2%", 2, false}, {"2", 2, false}, {" 0.5% ", 0.5, false}, {"100%", 100, false},
		{"0", 0, true}, {"-1%", 0, true}, {"101%", 0, true}, {"NaN", 0, true}, {"two", 0, true}, {"", 0, true},
	} {
		got, err := ParsePercent(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"2%", "0", "100", "1e3%", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParsePercent(s); err == nil && (v <= 0 || v > 100) {
			t.Fatalf("ParsePercent(%q) = %v", s, v)
		}
	})
}
