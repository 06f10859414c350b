package memory

import (
	"time"

	"github.com/arbor-eval/arbor/pkg/tokens"
)

// NewItem builds an item whose Tokens is text's length by c, so that every
// system counts evidence with the same counter the budget is expressed in.
func NewItem(c tokens.Counter, ch Channel, text string, t time.Time, sources ...string) Item {
	return Item{Channel: ch, Text: text, Sources: sources, Time: t, Tokens: c.Count(text)}
}

// Recount sets every item's Tokens from its Text with c, in place; it returns
// items for chaining.
func Recount(c tokens.Counter, items []Item) []Item {
	for i := range items {
		items[i].Tokens = c.Count(items[i].Text)
	}
	return items
}

// PackNewest keeps the newest items of a chronological (oldest-first) list
// that fit into budget and returns them oldest first. It keeps a contiguous
// suffix: the walk from the newest item stops at the first item that does not
// fit, because a chronological history with a hole in it would misrepresent
// what was said in between (the full-context rule of paper appendix C.2: "the
// newest turns are retained and then presented ... in chronological order").
// A budget of zero or less yields nil.
func PackNewest(items []Item, budget int) []Item {
	if budget <= 0 {
		return nil
	}
	used, start := 0, len(items)
	for i := len(items) - 1; i >= 0; i-- {
		if used+items[i].Tokens > budget {
			break
		}
		used += items[i].Tokens
		start = i
	}
	if start == len(items) {
		return nil
	}
	out := make([]Item, len(items)-start)
	copy(out, items[start:])
	return out
}

// PackInOrder walks items in their given (rank) order and keeps every item
// that still fits into what is left of budget, skipping those that do not, so
// that one long unit does not starve the shorter ones ranked after it. The
// kept items keep their relative order. A budget of zero or less yields nil.
func PackInOrder(items []Item, budget int) []Item {
	if budget <= 0 {
		return nil
	}
	var out []Item
	left := budget
	for _, it := range items {
		if it.Tokens <= left {
			out = append(out, it)
			left -= it.Tokens
		}
	}
	return out
}

// TotalTokens is the token total of items.
func TotalTokens(items []Item) int {
	return Bundle{Items: items}.Tokens()
}
