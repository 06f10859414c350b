package arbormem

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/index"
)

// TestPrepareNodeSplit: prepareNode reads the interaction's content terms
// off the lexical text's analysis; its lexical terms must be the whole
// text's analysis, and its content terms those the content match finds
// by analysing the interaction alone (indexContent's own path), including
// texts not analysed line by line, blank lines, labelled lines, irregular
// pasts read as a base form the text also says, and no content at all.
func TestPrepareNodeSplit(t *testing.T) {
	s := newTestSystem(t, func(_ *config.ArborMem, d *Deps) { d.Routing = RoutingHeuristic })
	if !s.offline().contentRouting() {
		t.Fatal("content routing is off: the split is not exercised")
	}
	cases := []struct {
		name string
		in   dialog.Interaction
		meta NodeMeta
	}{
		{"plain", inter("a", "We met Kofi at the climbing gym; we meet again in May 2024.", "Meeting Kofi again sounds great. The gym opens at 8."),
			NodeMeta{Summary: "User met Kofi at the gym.", Entities: []string{"Kofi", "May 2024"}}},
		{"blank and labelled lines", inter("b", "Budget:\n\n  rent: 1050\nfood: 300\n", "Noted.\n\nTotal: 1350 per month."),
			NodeMeta{Summary: "Budget of 1350.", Entities: nil}},
		{"stop words only", inter("c", "and the of it", "it is"), NodeMeta{}},
		{"non-ASCII", inter("d", "Zoë's café in Zürich, 東京 and naïve résumé", "Très bien — the café opens at 10:30."),
			NodeMeta{Summary: "Café in Zürich.", Entities: []string{"Zoë", "Zürich"}}},
		{"invalid UTF-8", inter("e", "bought a\xcb\nbike for 1200", "nice \xe2\x80 bike"),
			NodeMeta{Summary: "Bought a bike.", Entities: []string{"bike"}}},
		{"repeats", inter("f", strings.Repeat("tomato seedlings and basil, ", 40), strings.Repeat("water the basil daily. ", 30)),
			NodeMeta{Summary: "Tomatoes and basil.", Entities: []string{"Basil"}}},
		{"speakers", dialog.Interaction{ID: "g", Turns: []dialog.Turn{{Role: dialog.RoleUser, Speaker: "Caroline", Content: "I flew to Lisbon and flew back."},
			{Role: dialog.RoleAssistant, Speaker: "Melanie", Content: "Fly again soon!"}}},
			NodeMeta{Summary: "Caroline flew to Lisbon.", Entities: []string{"Caroline", "Lisbon"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := &Node{Interaction: c.in, Summary: c.meta.Summary, Entities: c.meta.Entities, PathSummary: "Topic: x | Progress: " + c.meta.Summary}
			n.TopicKey = "topic key"
			content := s.prepareNode(context.Background(), n, turnLines(c.in))
			lex := c.in.Text() + "\n" + n.Summary + "\n" + strings.Join(n.Entities, " ; ") + "\n" + n.TopicKey
			if want := index.Analyze(lex); !slices.Equal(n.lexTerms, want) {
				t.Fatalf("lexical terms %q, want %q", n.lexTerms, want)
			}
			want := contentTerms(c.in.Text())
			if !index.LineWise(lex) {
				if content != nil {
					t.Fatalf("content terms %q for a text not analysed line by line, want nil", content)
				}
				return
			}
			if !slices.Equal(content, want) {
				t.Fatalf("content terms %q, want %q", content, want)
			}
		})
	}
}

// TestTopicTermsSplit: topicTerms gives the set of the joined text's terms
// and numbers new terms in the vocabulary in the same order as analysing
// the joined text did, whatever the parts repeat of each other.
func TestTopicTermsSplit(t *testing.T) {
	cases := [][3]string{
		{"garden plan", "Topic: garden plan (Kofi) | Progress: User plants tomatoes and basil", "Kofi ; May 2024"},
		{"", "", ""},
		{"basil", "Topic: basil | Progress: basil basil tomatoes", "Basil ; Tomatoes ; garden"},
		{"café", "Topic: café in Zürich | Progress: naïve résumé\nsecond line: more", "Zoë ; Zürich"},
		{"bad \xcb", "Topic: x\xe2\x80 | Progress: y", "a\xcb"},
		{"and the", "of it", "is"},
	}
	for _, c := range cases {
		got, want := newTestSystem(t), newTestSystem(t)
		want.vocab.idsOf(nil, []string{"seed", "basil"}) // a vocabulary that knows a term already
		got.vocab.idsOf(nil, []string{"seed", "basil"})
		g := got.topicTerms(c[0], c[1], c[2])
		w := want.termList(rules.Terms(c[0] + "\n" + c[1] + "\n" + c[2]))
		if !slices.Equal(g.ids, w.ids) || !slices.Equal(got.vocab.terms, want.vocab.terms) {
			t.Fatalf("%q: ids %v vocabulary %q, want %v %q", c, g.ids, got.vocab.terms, w.ids, want.vocab.terms)
		}
	}
}

// TestVocabDistinct: distinct keeps each term once, in order of first
// occurrence, whether its set is a bitmap (numbers close together) or a map
// (a large vocabulary, a short text).
func TestVocabDistinct(t *testing.T) {
	v := newVocab()
	var filler []string
	for i := range 2000 {
		filler = append(filler, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
	}
	v.idsOf(nil, filler) // numbers in the thousands for what follows
	for _, ts := range [][]string{
		strings.Fields("garden plan tomato garden basil plan plan"),
		strings.Fields("a"),
		nil,
		append(strings.Fields("basil kitchen"), filler[:300]...),
	} {
		ts = slices.Clone(ts)
		ids := v.internAll(ts)
		var want []string
		for _, x := range ts {
			if !slices.Contains(want, x) {
				want = append(want, x)
			}
		}
		if got := v.distinct(ts, ids); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("distinct(%q) = %q, want %q", ts, got, want)
		}
	}
}
