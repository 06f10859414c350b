package table

import (
	"fmt"
	"strings"
)

// Interval is a cell's confidence interval, in the cell's own units.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Clusters is the number of resampling units the interval rests on
	// (0 when unknown).
	Clusters int `json:"clusters,omitempty"`
}

// Comparison is a cell's paired comparison with the best cell of its line
// (row or column, by the table's Highlight): the same questions answered by
// both, the difference best − this cell with its interval, and the
// p-value read off the same resamples as the interval.
type Comparison struct {
	// Best is the label of the cell compared against (a column name for a
	// row-highlighted table, a row label for a column-highlighted one).
	Best string  `json:"best"`
	N    int     `json:"n"`
	Diff float64 `json:"diff"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	P    float64 `json:"p"`
	// Distinct is false when the interval of the difference includes zero:
	// the two cannot be told apart on these questions. It is the same
	// condition as P < 1 − level: both come from one set of resamples.
	Distinct bool `json:"distinct"`
	// Clusters is the number of resampling units of the comparison.
	Clusters int `json:"clusters,omitempty"`
}

// StatsInfo says how a table's intervals were made, for captions.
type StatsInfo struct {
	// Level is the confidence level (0.95).
	Level float64 `json:"level"`
	// Method describes the procedure in words ("percentile bootstrap, 10,000
	// resamples of episodes").
	Method string `json:"method"`
	// Against names what the comparisons are with, for the caption; ""
	// means the best of each row (or column, by Highlight).
	Against string `json:"against,omitempty"`
	// MinClusters is the number of resampling units below which an
	// interval is marked FewClusters (0: none is marked).
	MinClusters int `json:"min_clusters,omitempty"`
}

// FewClusters marks an interval that rests on fewer resampling units than
// StatsInfo.MinClusters.
const FewClusters = "†"

// few reports whether the cell's interval rests on too few clusters.
func (t Table) few(cl Cell) bool {
	return t.Stats != nil && cl.CI != nil && cl.CI.Clusters > 0 && cl.CI.Clusters < t.Stats.MinClusters
}

// CIForm is how Markdown and LaTeX show intervals; JSON and CSV always carry
// them.
type CIForm string

// Interval forms.
const (
	// CIHidden shows point estimates only (the paper's layout).
	CIHidden CIForm = ""
	// CIPlusMinus shows "68.4 ± 4.1", the half-width of the interval.
	CIPlusMinus CIForm = "pm"
	// CIBrackets shows "68.4 [64.2, 72.6]".
	CIBrackets CIForm = "interval"
)

// ParseCIForm reads a --ci or report.ci value: "off"/"" (hidden), "pm",
// "interval".
func ParseCIForm(s string) (CIForm, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "off", "none", "false":
		return CIHidden, nil
	case "pm", "±", "plusminus", "true":
		return CIPlusMinus, nil
	case "interval", "brackets":
		return CIBrackets, nil
	}
	return CIHidden, fmt.Errorf("ci form %q: want off, pm or interval", s)
}

// Indistinct is the mark on a cell that cannot be told apart from its
// line's best when intervals are shown.
const Indistinct = "≈"

// showCI reports whether Markdown and LaTeX show intervals and marks.
func (t Table) showCI() bool { return t.CIForm != CIHidden && t.hasStats() }

func (t Table) hasStats() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.CI != nil || c.VsBest != nil {
				return true
			}
		}
	}
	return false
}

// ciText is the interval text that follows a cell's value ("± 4.1" or
// "[64.2, 72.6]"), "" when hidden or absent.
func (t Table) ciText(r, c int) string {
	cl := t.cell(r, c)
	if !t.showCI() || cl.CI == nil || !cl.finite() || c >= len(t.Columns) {
		return ""
	}
	d := t.Columns[c].Decimals
	mark := ""
	if t.few(cl) {
		mark = FewClusters
	}
	if t.CIForm == CIPlusMinus {
		return "± " + Format((cl.CI.Hi-cl.CI.Lo)/2, d) + mark
	}
	return "[" + Format(cl.CI.Lo, d) + ", " + Format(cl.CI.Hi, d) + "]" + mark
}

// indistinct reports whether the cell is marked as not distinguishable
// from its line's best.
func (t Table) indistinct(r, c int) bool {
	cl := t.cell(r, c)
	return t.showCI() && cl.VsBest != nil && !cl.VsBest.Distinct
}

// ciCaption is the caption sentence that explains intervals and marks, ""
// when they are hidden.
func (t Table) ciCaption() string {
	if !t.showCI() {
		return ""
	}
	level := 95.0
	method := "bootstrap"
	if t.Stats != nil {
		level = t.Stats.Level * 100
		if t.Stats.Method != "" {
			method = t.Stats.Method
		}
	}
	form := "half-width of the"
	if t.CIForm == CIBrackets {
		form = "bounds of the"
	}
	lv := Format(level, 0)
	s := fmt.Sprintf("Values carry the %s %s%% confidence interval (%s).", form, lv, method)
	marked := false
	for r := range t.Rows {
		for c := range t.Columns {
			marked = marked || t.indistinct(r, c)
		}
	}
	if marked {
		against := "the best of its row"
		if t.Highlight.By == ByColumn {
			against = "the best of its column"
		}
		if t.Stats != nil && t.Stats.Against != "" {
			against = t.Stats.Against
		}
		s += fmt.Sprintf(" %s marks a result not distinguishable from %s: the %s%% interval of the paired difference on the same questions includes zero (equivalently, p ≥ %s from the same resamples).", Indistinct, against, lv, Format(1-level/100, 2))
	}
	fewest := 0
	for r := range t.Rows {
		for c := range t.Columns {
			if cl := t.cell(r, c); t.few(cl) && (fewest == 0 || cl.CI.Clusters < fewest) {
				fewest = cl.CI.Clusters
			}
		}
	}
	if fewest > 0 {
		s += fmt.Sprintf(" %s marks an interval resting on fewer than %d resampling units (as few as %d): its coverage is rough.", FewClusters, t.Stats.MinClusters, fewest)
	}
	return s
}

// captionWithCI is the caption as Markdown and LaTeX print it.
func (t Table) captionWithCI() string {
	extra := t.ciCaption()
	switch {
	case extra == "":
		return t.Caption
	case t.Caption == "":
		return extra
	}
	return t.Caption + " " + extra
}

// statColumns reports, per column, whether any cell carries an interval or
// a comparison (CSV adds columns for them).
func (t Table) statColumns() (ci, vs []bool) {
	ci, vs = make([]bool, len(t.Columns)), make([]bool, len(t.Columns))
	for r := range t.Rows {
		for c := range t.Columns {
			cl := t.cell(r, c)
			ci[c] = ci[c] || cl.CI != nil
			vs[c] = vs[c] || cl.VsBest != nil
		}
	}
	return ci, vs
}
