package scoring

import (
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// DegradedSummary is one line naming the non-zero counts of d ("" when none).
func DegradedSummary(d record.SystemDegraded) string {
	var parts []string
	add := func(n int, what string, of int, ofWhat string) {
		if n == 0 {
			return
		}
		s := fmt.Sprintf("%d %s", n, what)
		if of > 0 {
			s += fmt.Sprintf(" (%.1f%% of %d %s)", 100*float64(n)/float64(of), of, ofWhat)
		}
		parts = append(parts, s)
	}
	add(d.Fallbacks, "memory operations fell back to rules", d.Committed, "interactions")
	add(d.ModelErrors, "model calls failed", 0, "")
	add(d.BadReplies, "replies could not be parsed", 0, "")
	add(d.Repaired, "replies needed repair", 0, "")
	add(d.IngestErrors, "interactions failed to commit", d.Committed, "interactions")
	add(d.JudgeUnparsed, "judge replies unparsed (scored 0)", d.JudgeReplies, "replies")
	add(d.FailedSamples, "failed samples (scored 0)", d.Samples, "samples")
	if len(parts) == 0 {
		return ""
	}
	return SystemName(d.System) + ": " + strings.Join(parts, ", ")
}

// DegradedBySystem sums the degraded counts per system, in the tables'
// system order. Only the latest record of each key counts (a retried error
// no longer does).
func DegradedBySystem(samples []record.Sample, episodes []record.EpisodeStat) []record.SystemDegraded {
	by := map[string]*record.SystemDegraded{}
	get := func(sys string) *record.SystemDegraded {
		if by[sys] == nil {
			by[sys] = &record.SystemDegraded{System: sys}
		}
		return by[sys]
	}
	for _, e := range record.Latest(episodes, record.EpisodeStat.Key) {
		d := get(e.System)
		d.Committed += e.Committed
		d.Degraded.Add(e.Degraded)
	}
	for _, s := range record.Latest(samples, record.Sample.Key) {
		d := get(s.System)
		d.Samples++
		if s.Error != "" {
			d.FailedSamples++
		}
		for _, sc := range s.Scores {
			if sc.Heuristic {
				continue
			}
			d.JudgeReplies += judgeReplies(sc)
			d.JudgeUnparsed += sc.Unparsed
		}
	}
	out := make([]record.SystemDegraded, 0, len(by))
	for _, sys := range orderSystems(sortedKeysOf(by)) {
		out = append(out, *by[sys])
	}
	return out
}

// judgeReplies is how many judge replies a score rests on: one per rubric
// item (Parts) for BEAM, at least the unparsed ones, else one when the
// score came from a judge model (it kept a raw reply).
func judgeReplies(sc record.ScoreRecord) int {
	switch {
	case sc.Raw == "":
		return sc.Unparsed
	case len(sc.Parts) > 0:
		return max(len(sc.Parts), sc.Unparsed)
	}
	return max(1, sc.Unparsed)
}

// DegradedNotes are the table notes for a run's degraded counts: one per
// system with any, nothing for a clean run.
func DegradedNotes(ds []record.SystemDegraded) []string {
	var out []string
	for _, d := range ds {
		if s := DegradedSummary(d); s != "" {
			out = append(out, "Degraded: "+s+".")
		}
	}
	return out
}

// DegradedTable lists every system's counts, clean ones included, so that
// a reader sees that they were counted.
func DegradedTable(ds []record.SystemDegraded) table.Table {
	t := table.Table{
		Title: "Degraded operations per system",
		Stub:  "System",
		Columns: []table.Column{
			{Name: "Interactions", Decimals: 0}, {Name: "Fallbacks", Decimals: 0}, {Name: "Model errors", Decimals: 0},
			{Name: "Bad replies", Decimals: 0}, {Name: "Repaired", Decimals: 0}, {Name: "Ingest errors", Decimals: 0},
			{Name: "Samples", Decimals: 0}, {Name: "Failed samples", Decimals: 0}, {Name: "Judge replies", Decimals: 0},
			{Name: "Judge unparsed", Decimals: 0}, {Name: "Worst", Unit: "%", Decimals: 1},
		},
		Caption: "What went wrong but was survived: memory operations that fell back to rules (fallbacks = model errors + bad replies of memory operations), replies that parsed only after a repair retry, interactions whose commit failed, samples recorded with an error and judge replies that gave no verdict (both scored 0). Worst is the largest count as a share of what it counts out of (interactions, samples, judge replies); --strict and --max-degraded compare it.",
	}
	for _, d := range ds {
		row := table.Row{Label: SystemName(d.System)}
		for _, n := range []int{d.Committed, d.Fallbacks, d.ModelErrors, d.BadReplies, d.Repaired, d.IngestErrors, d.Samples, d.FailedSamples, d.JudgeReplies, d.JudgeUnparsed} {
			row.Cells = append(row.Cells, table.V(float64(n)))
		}
		row.Cells = append(row.Cells, table.V(d.WorstPercent()))
		t.Rows = append(t.Rows, row)
	}
	return t
}
