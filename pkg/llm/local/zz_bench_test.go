package local

import (
	"context"
	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
	"testing"
)

func BenchmarkZZLong(b *testing.B) {
	_, node, _ := commitTexts(1)
	node = node[:3000]
	e := NewEmbedder(DefaultDim)
	b.Run("state", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sc := e.scratch()
			words, stems := sc.analyse(node)
			e.combine(sc, buildState(words, stems, e.dim))
			sc.put()
		}
	})
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sc := e.scratch()
			words, stems := sc.analyse(node)
			e.countCombine(sc, words, stems)
			sc.put()
		}
	})
}

func BenchmarkZZCommitCPU(b *testing.B) {
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
	i := 0
	c0 := benchinput.ProcessCPU()
	for b.Loop() {
		c := cs[i%len(cs)]
		i++
		textmemo.ResetAll()
		for _, texts := range [][]string{{c.loc}, {c.node}, c.rest} {
			for _, t := range texts {
				index.ContentWords(t)
			}
		}
		for _, texts := range [][]string{{c.loc}, {c.node}, c.rest} {
			if _, err := e.Embed(ctx, texts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(benchinput.ProcessCPU()-c0)/float64(i)/1e3, "cpu-µs/op")
}
