package runners

import (
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/stats"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/scoring"
)

// ReportOptions say how a run's tables are reported: the statistics they
// carry and how Markdown and LaTeX show them.
type ReportOptions struct {
	// Stats configures intervals and paired comparisons (JSON and CSV
	// always carry them).
	Stats scoring.StatsOptions
	// CIForm is how Markdown and LaTeX show intervals (report.ci, --ci).
	CIForm table.CIForm
	// Compare names two systems to compare in detail, per benchmark and
	// category (--compare a,b); empty for none.
	Compare []string
	// Tables picks the printed tables: TablesMain ("" too) or TablesAll.
	Tables string
	// OutDir is where the tables are written; "" is the run's tables/.
	OutDir string
	// Selection restricts the tables to one command's selection (Run sets
	// its own); nil takes the manifest's latest selection.
	Selection *record.Selection
	// Union tables every sample of a folder written by several selections
	// (arbor report --union).
	Union bool
}

// DefaultReportOptions are configs/default.yaml's report settings.
func DefaultReportOptions() ReportOptions { return ReportOptions{Stats: scoring.DefaultStats()} }

// ReportOptionsFrom reads the report.* keys and run.seed of cfg.
func ReportOptionsFrom(cfg *config.Config) (ReportOptions, error) {
	if cfg == nil {
		return DefaultReportOptions(), nil
	}
	r := cfg.Report
	form, err := table.ParseCIForm(r.CI)
	if err != nil {
		return ReportOptions{}, fmt.Errorf("report.ci: %w", err)
	}
	return ReportOptions{
		Stats: scoring.StatsOptions{
			Options:     stats.Options{Resamples: r.Resamples, Level: r.Level, Seed: uint64(cfg.Run.Seed), Interval: r.Interval},
			Cluster:     r.Cluster.Units(),
			MinClusters: r.MinClusters,
		},
		CIForm: form,
	}, nil
}

// ParseCompare reads --compare "a,b": exactly two system names.
func ParseCompare(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("--compare %q: want two systems separated by a comma, e.g. arbormem,mem0", s)
	}
	return parts, nil
}

// withForm sets the interval form on every table.
func (o ReportOptions) withForm(ts []namedTable) []namedTable {
	for i := range ts {
		ts[i].t.CIForm = o.CIForm
	}
	return ts
}

// compareTable is the detailed comparison of o.Compare, printed always.
func compareTable(samples []record.Sample, o ReportOptions) (namedTable, error) {
	if len(o.Compare) != 2 {
		return namedTable{}, fmt.Errorf("compare: want two systems, got %d", len(o.Compare))
	}
	t, err := scoring.CompareTable(samples, o.Compare[0], o.Compare[1], o.Stats)
	if err != nil {
		return namedTable{}, err
	}
	return namedTable{"compare-" + fileSafe(o.Compare[0]) + "-" + fileSafe(o.Compare[1]), t, true}, nil
}

// fileSafe keeps letters, digits, '-' and '_' of a system name for a file name.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "system"
	}
	return b.String()
}
