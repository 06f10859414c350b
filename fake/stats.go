package fake

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteStats prints the counts so far, one line per prompt: replies, repair
// replies, varied replies (by kind) and unparseable replies.
func (s *Speaker) WriteStats(w io.Writer) error {
	st := s.Stats()
	names := make([]string, 0, len(st))
	for n := range st {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "prompt\treplies\trepairs\tvaried\tunparseable\tunparseable repairs")
	for _, n := range names {
		p := st[n]
		var kinds []string
		total := 0
		for _, k := range Noise {
			if c := p.Noisy[k]; c > 0 {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
				total += c
			}
		}
		varied := fmt.Sprint(total)
		if len(kinds) > 0 {
			varied += " (" + strings.Join(kinds, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\n", n, p.Replies, p.Repairs, varied, p.Unparseable, p.UnparseableRepairs)
	}
	return tw.Flush()
}
