package local

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// commitTexts makes the texts an offline ArborMem commit of a BEAM-sized
// interaction embeds (a user message of about 150 words, a reply of about
// 600): localization's input (the user message), the node's text, and the
// facts, each followed by the interaction (fact key expansion), with a
// few short records. Words are drawn from a Zipf law over a made-up
// vocabulary, with stop words, numbers and punctuation, so repeats and
// word lengths are those of chat text.
func commitTexts(seed uint64) (loc, node string, rest []string) {
	r := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mer", "tin", "sa", "ver", "pol", "du", "ran", "ge", "ste", "ow", "bri", "na", "cle", "mo", "th", "ing", "ed", "ly"}
	stops := []string{"the", "and", "of", "a", "to", "in", "is", "we", "it", "for", "on", "that", "with", "be", "this"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	para := func(words int) string {
		var b strings.Builder
		for i := range words {
			if i > 0 {
				switch {
				case i%13 == 0:
					b.WriteString(".\n\n")
				case i%7 == 0:
					b.WriteString(", ")
				default:
					b.WriteByte(' ')
				}
			}
			switch x := r.IntN(10); {
			case x < 4:
				b.WriteString(stops[r.IntN(len(stops))])
			case x == 4 && r.IntN(4) == 0:
				b.WriteString(strconv.Itoa(r.IntN(3000)))
			default:
				w := vocab[zipf.Uint64()]
				if r.IntN(8) == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				b.WriteString(w)
			}
		}
		return b.String()
	}
	user, asst := para(150), para(600)
	node = "user: " + user + "\nassistant: " + asst
	src := "User: " + user + "\nAssistant: " + asst
	for range 6 {
		rest = append(rest, para(12)+"\n"+src)
	}
	for range 3 {
		rest = append(rest, para(10))
	}
	return user, node, rest
}

// BenchmarkEmbedCommit embeds what one offline ArborMem commit of a
// BEAM-sized interaction embeds, in the same calls (localization's input,
// the node, then the facts and records in one call), each run seeing its
// texts for the first time: "cold" with everything forgotten, "analysed"
// with the texts' words already found by the index's line analysis, which
// the commit shares with BM25 and the reranker (the embedder's own work).
func BenchmarkEmbedCommit(b *testing.B) {
	type commit struct {
		loc, node string
		rest      []string
	}
	var cs []commit
	for i := range 8 {
		loc, node, rest := commitTexts(uint64(i))
		cs = append(cs, commit{loc, node, rest})
	}
	e := NewEmbedder(DefaultDim)
	ctx := context.Background()
	for _, analysed := range []bool{false, true} {
		name := "cold"
		if analysed {
			name = "analysed"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				c := cs[i%len(cs)]
				i++
				calls := [][]string{{c.loc}, {c.node}, c.rest}
				if analysed {
					b.StopTimer()
				}
				textmemo.ResetAll()
				if analysed {
					for _, texts := range calls {
						for _, t := range texts {
							index.ContentWords(t)
						}
					}
					b.StartTimer()
				}
				for _, texts := range calls {
					if _, err := e.Embed(ctx, texts); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// The parts of a commit's embedding, each on words already analysed and
// remembered (BenchmarkEmbedCommit measures them together): the node's
// state, the facts' vectors on that state, and the short localization
// input.
func BenchmarkEmbedParts(b *testing.B) {
	loc, node, rest := commitTexts(1)
	words, stems := index.ContentWords(node), index.Analyze(node)
	e := NewEmbedder(DefaultDim)
	b.Run("state", func(b *testing.B) {
		for b.Loop() {
			buildState(words, stems, DefaultDim)
		}
	})
	st := buildState(words, stems, DefaultDim)
	var heads []string
	for _, t := range rest[:6] {
		h, _, _ := strings.Cut(t, "\n")
		heads = append(heads, h)
	}
	b.Run("facts", func(b *testing.B) {
		for b.Loop() {
			for _, h := range heads {
				e.vectorWithTail(h, st)
			}
		}
	})
	b.Run("short", func(b *testing.B) {
		for b.Loop() {
			e.vector(loc)
		}
	})
}
