package scoring

// Statistics in tables: every accuracy and evidence-recall cell can carry a
// bootstrap confidence interval, and every cell its paired comparison with
// the best cell of its line (package stats). The builders collect each
// cell's per-question observations in a grid shaped like the table;
// addStats turns the grid into intervals and comparisons, so every table
// computes them the same way.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/stats"
	"github.com/arbor-eval/arbor/pkg/table"
)

// StatsOptions turn on intervals and paired comparisons in a table. A table
// built without them carries point estimates only.
type StatsOptions struct {
	stats.Options
	// Cluster maps a benchmark key ("longmemeval", "locomo", "beam",
	// "branchmemeval"; "" for any other) to its resampling unit: "episode"
	// (questions sharing a conversation are resampled together) or
	// "question". A missing entry means "episode".
	Cluster map[string]string
	// MinClusters is the number of resampling units below which a cell's
	// interval is marked as resting on too few (report.min_clusters,
	// default 20; 0 takes the default, a negative value marks none).
	MinClusters int
}

// DefaultMinClusters is report.min_clusters' default: below about 20
// clusters a bootstrap interval's coverage is rough whatever the method.
const DefaultMinClusters = 20

func (o StatsOptions) minClusters() int {
	if o.MinClusters == 0 {
		return DefaultMinClusters
	}
	return max(o.MinClusters, 0)
}

// DefaultStats are configs/default.yaml's report settings: 10,000
// studentized-bootstrap resamples at 95%, seed 42, LongMemEval resampled by
// question and the other benchmarks by episode.
func DefaultStats() StatsOptions {
	return StatsOptions{
		Options: stats.Options{Resamples: 10000, Level: 0.95, Seed: 42, Interval: stats.Studentized},
		Cluster: map[string]string{"longmemeval": "question", "locomo": "episode", "beam": "episode", "branchmemeval": "episode", "": "episode"},
	}
}

// firstStats picks the optional options argument of a table builder.
func firstStats(st []StatsOptions) (StatsOptions, bool) {
	if len(st) == 0 {
		return StatsOptions{}, false
	}
	return st[0], true
}

// obs is one question's value in a cell (a score in 0..1, a recall share).
type obs struct {
	bench, episode, question string
	v                        float64
}

// sampleObs is s's observation with value v (non-finite values count as 0,
// as accAgg does).
func sampleObs(s record.Sample, v float64) obs {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return obs{s.Benchmark, s.Episode, s.Question, v}
}

// scoreObs is the sample's accuracy observation: its primary score, 0 for
// a failed sample (accAgg's rule).
func scoreObs(s record.Sample) obs {
	if s.Error != "" {
		return sampleObs(s, 0)
	}
	return sampleObs(s, s.PrimaryScore())
}

// key pairs observations of two systems: the same question of the same
// episode of the same benchmark.
func (x obs) key() string { return x.bench + "\x1f" + x.episode + "\x1f" + x.question }

func (o StatsOptions) unit(bench string) string {
	if u := o.Cluster[benchKey(bench)]; u != "" {
		return u
	}
	return "episode"
}

// clusterID is x's resampling unit.
func (o StatsOptions) clusterID(x obs) string {
	if o.unit(x.bench) == "question" {
		return x.key()
	}
	return x.bench + "\x1f" + x.episode
}

// canonical orders observations by resampling unit, then by question, so
// that clusters are drawn in an order that depends on the samples alone,
// never on the order samples.jsonl holds them in (which concurrency and
// resumes change).
func (o StatsOptions) canonical(xs []obs) []obs {
	type keyed struct {
		id, key string
		x       obs
	}
	ks := make([]keyed, len(xs))
	for i, x := range xs {
		ks[i] = keyed{o.clusterID(x), x.key(), x}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]obs, len(xs))
	for i, k := range ks {
		out[i] = k.x
	}
	return out
}

// interval is the bootstrap interval of the mean of xs and the number of
// clusters it rests on.
func (o StatsOptions) interval(xs []obs) (stats.Interval, int) {
	xs = o.canonical(xs)
	vals := make([]float64, len(xs))
	ids := make([]string, len(xs))
	for i, x := range xs {
		vals[i], ids[i] = x.v, o.clusterID(x)
	}
	e := stats.Resample(stats.Group(vals, ids), o.Options)
	return e.CI, e.Clusters
}

// compare is a against b on the questions both answered, paired in
// canonical order.
func (o StatsOptions) compare(a, b []obs) stats.Paired {
	at := make(map[string]float64, len(a))
	for _, x := range a {
		at[x.key()] = x.v
	}
	var va, vb []float64
	var ids []string
	for _, y := range o.canonical(b) {
		if v, ok := at[y.key()]; ok {
			va, vb, ids = append(va, v), append(vb, y.v), append(ids, o.clusterID(y))
		}
	}
	return stats.Compare(va, vb, ids, o.Options)
}

// statGrid holds each cell's observations, [row][column]; nil where a cell
// carries no interval.
type statGrid [][][]obs

func newGrid(rows, cols int) statGrid {
	g := make(statGrid, rows)
	for r := range g {
		g[r] = make([][]obs, cols)
	}
	return g
}

// at is the grid's cell, nil outside it.
func (g statGrid) at(r, c int) []obs {
	if r < len(g) && c < len(g[r]) {
		return g[r][c]
	}
	return nil
}

// addStats sets every cell's interval from the grid (values scaled by
// scale: 100 for percent) and compares each line's best cell (by the
// table's Highlight and Styles) with the other cells of the line.
func addStats(t *table.Table, g statGrid, scale float64, o StatsOptions) {
	for r := range t.Rows {
		for c := range t.Rows[r].Cells {
			if xs := g.at(r, c); len(xs) > 0 && t.Rows[r].Cells[c].Value != nil {
				iv, k := o.interval(xs)
				t.Rows[r].Cells[c].CI = &table.Interval{Lo: iv.Lo * scale, Hi: iv.Hi * scale, Clusters: k}
			}
		}
	}
	styles := t.Styles()
	switch t.Highlight.By {
	case table.ByRow:
		for r := range t.Rows {
			var line [][2]int
			for c := range t.Columns {
				line = append(line, [2]int{r, c})
			}
			if ref, ok := bestOf(line, styles, g); ok {
				compareLine(t, g, scale, o, line, ref, t.Columns[ref[1]].Name)
			}
		}
	case table.ByColumn:
		for c, col := range t.Columns {
			if col.Better == table.NoBetter {
				continue
			}
			var line [][2]int
			for r := range t.Rows {
				line = append(line, [2]int{r, c})
			}
			if ref, ok := bestOf(line, styles, g); ok {
				compareLine(t, g, scale, o, line, ref, t.Rows[ref[0]].Label)
			}
		}
	}
	t.Stats = &table.StatsInfo{Level: o.norm().Level, Method: o.method(g), MinClusters: o.minClusters()}
}

// bestOf is the first cell of line marked Best that has observations.
func bestOf(line [][2]int, styles [][]table.Style, g statGrid) ([2]int, bool) {
	for _, p := range line {
		if p[0] < len(styles) && p[1] < len(styles[p[0]]) && styles[p[0]][p[1]] == table.Best && len(g.at(p[0], p[1])) > 0 {
			return p, true
		}
	}
	return [2]int{}, false
}

// compareLine compares the reference cell ref with every other cell of
// line that has observations; the difference is ref − cell.
func compareLine(t *table.Table, g statGrid, scale float64, o StatsOptions, line [][2]int, ref [2]int, label string) {
	best := g.at(ref[0], ref[1])
	for _, p := range line {
		xs := g.at(p[0], p[1])
		if p == ref || len(xs) == 0 || p[1] >= len(t.Rows[p[0]].Cells) {
			continue
		}
		pr := o.compare(best, xs)
		if pr.N == 0 {
			continue
		}
		t.Rows[p[0]].Cells[p[1]].VsBest = &table.Comparison{
			Best: label, N: pr.N, Diff: pr.Diff * scale, Lo: pr.CI.Lo * scale, Hi: pr.CI.Hi * scale,
			P: pr.P, Distinct: pr.Distinct(), Clusters: pr.Clusters,
		}
	}
}

func (o StatsOptions) norm() stats.Options {
	d := DefaultStats().Options
	n := o.Options
	if n.Resamples <= 0 {
		n.Resamples = d.Resamples
	}
	if n.Level <= 0 || n.Level >= 1 {
		n.Level = d.Level
	}
	return n
}

// method describes the procedure for captions: resamples, interval type
// and each benchmark's resampling unit.
func (o StatsOptions) method(g statGrid) string {
	var benches []string
	seen := map[string]bool{}
	for _, row := range g {
		for _, xs := range row {
			for _, x := range xs {
				if !seen[x.bench] {
					seen[x.bench] = true
					benches = append(benches, x.bench)
				}
			}
		}
	}
	return o.methodFor(benches)
}

// methodFor is method for the named benchmarks.
func (o StatsOptions) methodFor(benches []string) string {
	units := map[string][]string{}
	for _, b := range benches {
		u := o.unit(b) + "s"
		units[u] = append(units[u], BenchmarkName(b))
	}
	var parts []string
	for _, u := range []string{"questions", "episodes"} {
		if len(units[u]) > 0 {
			parts = append(parts, strings.Join(orderedNames(units[u]), ", ")+" "+u)
		}
	}
	kind := "percentile bootstrap"
	switch o.Interval {
	case stats.Basic:
		kind = "basic bootstrap"
	case stats.Studentized:
		kind = "studentized bootstrap (symmetric bootstrap-t)"
	}
	s := fmt.Sprintf("%s, %s resamples", kind, thousands(o.norm().Resamples))
	if len(parts) > 0 {
		s += " of " + strings.Join(parts, " and ")
	}
	return s
}

func orderedNames(names []string) []string {
	return orderByKnown(names, displayNames(benchOrder, BenchmarkName), func(s string) string { return s })
}

// thousands prints n with thousands separators (10,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
