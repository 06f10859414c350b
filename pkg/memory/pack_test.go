package memory

import (
	"strings"
	"testing"
	"time"
)

type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

// items builds items named by their token counts: "a3" has 3 tokens.
func items(tok ...int) []Item {
	var out []Item
	for i, n := range tok {
		out = append(out, Item{Text: string(rune('a' + i)), Tokens: n, Sources: []string{string(rune('a' + i))}})
	}
	return out
}

func names(it []Item) string {
	var b strings.Builder
	for _, x := range it {
		b.WriteString(x.Text)
	}
	return b.String()
}

func TestPack(t *testing.T) {
	packers := map[string]func([]Item, int) []Item{"PackNewest": PackNewest, "PackInOrder": PackInOrder}
	cases := []struct {
		pack, name string
		tok        []int
		budget     int
		want       string
	}{
		{"PackNewest", "empty input", nil, 10, ""},
		{"PackNewest", "zero budget", []int{1, 1}, 0, ""},
		{"PackNewest", "negative budget", []int{1, 1}, -5, ""},
		{"PackNewest", "all fit", []int{2, 3, 4}, 9, "abc"},
		{"PackNewest", "keeps newest", []int{2, 3, 4}, 7, "bc"},
		{"PackNewest", "exact boundary", []int{2, 3, 4}, 4, "c"},
		{"PackNewest", "newest too big", []int{1, 1, 5}, 4, ""},
		{"PackNewest", "stops at first misfit, no holes", []int{1, 9, 2, 2}, 6, "cd"},
		{"PackNewest", "zero-token items ride along", []int{0, 3, 0}, 3, "abc"},
		{"PackInOrder", "empty input", nil, 10, ""},
		{"PackInOrder", "zero budget", []int{1}, 0, ""},
		{"PackInOrder", "negative budget", []int{1}, -1, ""},
		{"PackInOrder", "all fit", []int{2, 3}, 5, "ab"},
		{"PackInOrder", "skips misfit, keeps later", []int{2, 9, 3, 1}, 6, "acd"},
		{"PackInOrder", "first too big", []int{7, 1, 1}, 2, "bc"},
		{"PackInOrder", "rank order kept", []int{3, 3, 3}, 6, "ab"},
	}
	for _, c := range cases {
		t.Run(c.pack+"/"+c.name, func(t *testing.T) {
			in := items(c.tok...)
			got := packers[c.pack](in, c.budget)
			if names(got) != c.want {
				t.Errorf("%s(%v, %d) = %q, want %q", c.pack, c.tok, c.budget, names(got), c.want)
			}
			if TotalTokens(got) > max(c.budget, 0) {
				t.Errorf("over budget: %d > %d", TotalTokens(got), c.budget)
			}
			if len(got) > 0 {
				got[0].Text = "mutated"
				if names(in) == names(got) {
					t.Errorf("result aliases the input")
				}
			}
		})
	}
}

func TestNewItemAndRecount(t *testing.T) {
	ts := time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC)
	it := NewItem(wordCounter{}, ChannelTurn, "three word text", ts, "i1", "i2")
	if it.Tokens != 3 || it.Channel != ChannelTurn || !it.Time.Equal(ts) || len(it.Sources) != 2 {
		t.Fatalf("NewItem = %+v", it)
	}
	in := []Item{{Text: "a b"}, {Text: ""}, {Text: "x y z w", Tokens: 99}}
	Recount(wordCounter{}, in)
	for i, want := range []int{2, 0, 4} {
		if in[i].Tokens != want {
			t.Errorf("Recount item %d = %d, want %d", i, in[i].Tokens, want)
		}
	}
}
