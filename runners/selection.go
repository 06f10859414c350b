package runners

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
)

// selectSamples keeps the samples of the selection a report covers: the
// one o names, else the manifest's latest, or every sample with o.Union or
// when the manifest records no selection. It returns the note the tables
// carry when they cover less than the folder or the dataset holds, and
// tells out when the folder was written by several selections.
func selectSamples(m *record.Manifest, o ReportOptions, samples []record.Sample, episodes []record.EpisodeStat, out io.Writer, run string) ([]record.Sample, []record.EpisodeStat, string) {
	distinct := 0
	if m != nil {
		distinct = len(m.Selections)
	}
	sel := o.Selection
	if sel == nil && m != nil && !o.Union {
		sel = m.Latest()
	}
	if o.Union {
		if distinct > 1 {
			if out != nil {
				fmt.Fprintf(out, "note: %s was written by %d different selections; the tables cover their union (%d samples)\n", run, distinct, len(samples))
			}
			return samples, episodes, fmt.Sprintf("Union of the %d selections that wrote this run (%d samples); each command's own tables cover its selection only.", distinct, len(samples))
		}
		return samples, episodes, ""
	}
	if sel == nil {
		return samples, episodes, ""
	}
	kept, keptEps := record.Filter(sel, samples, episodes)
	if distinct > 1 && out != nil && o.Selection == nil {
		fmt.Fprintf(out, "note: %s was written by %d different selections; the tables cover the latest (%s), %d of the folder's %d samples; --union tables them all\n",
			run, distinct, commandLine(sel.Command), len(kept), len(samples))
	}
	if len(sel.Episodes) >= sel.Available && len(kept) == len(samples) {
		return kept, keptEps, "" // the whole dataset, and all the folder holds
	}
	return kept, keptEps, selectionNote(sel)
}

// recordSelection adds sel to the manifest in dir as it stands.
func recordSelection(dir string, sel *record.Selection) (*record.Manifest, error) {
	m, err := record.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	m.AddSelection(*sel)
	return m, record.WriteManifest(dir, m)
}

// unionSelection is the selection of several runs together (the shards of
// one plan): their latest selections' episodes, systems, budgets and
// variants; nil when a run records none.
func unionSelection(ms []*record.Manifest, command []string) *record.Selection {
	u := &record.Selection{Command: command}
	qs := map[string]map[string]bool{}
	seen := map[string]bool{}
	for _, m := range ms {
		sel := m.Latest()
		if sel == nil {
			return nil
		}
		u.Available = max(u.Available, sel.Available)
		if u.Started.IsZero() || sel.Started.Before(u.Started) {
			u.Started = sel.Started
		}
		for _, e := range sel.Episodes {
			if qs[e.ID] == nil {
				qs[e.ID] = map[string]bool{}
				u.Episodes = append(u.Episodes, record.SelectedEpisode{ID: e.ID})
			}
			i := slices.IndexFunc(u.Episodes, func(x record.SelectedEpisode) bool { return x.ID == e.ID })
			for _, q := range e.Questions {
				if !qs[e.ID][q] {
					qs[e.ID][q] = true
					u.Episodes[i].Questions = append(u.Episodes[i].Questions, q)
				}
			}
		}
		for _, x := range sel.Systems {
			if !seen["s"+x] {
				seen["s"+x] = true
				u.Systems = append(u.Systems, x)
			}
		}
		for _, x := range sel.Variants {
			if !seen["v"+x] {
				seen["v"+x] = true
				u.Variants = append(u.Variants, x)
			}
		}
		for _, b := range sel.Budgets {
			if !slices.Contains(u.Budgets, b) {
				u.Budgets = append(u.Budgets, b)
			}
		}
	}
	slices.SortFunc(u.Episodes, func(a, b record.SelectedEpisode) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(u.Systems)
	slices.Sort(u.Variants)
	slices.Sort(u.Budgets)
	return u
}

// selectionNote says what a table covers: how many episodes and questions
// of how many. The command is left out: it holds paths, and a table is a
// function of the samples and the selection only (the manifest names it).
func selectionNote(sel *record.Selection) string {
	return fmt.Sprintf("Selection: %d of %d episodes, %d questions.", len(sel.Episodes), sel.Available, sel.Questions())
}

// commandLine is argv as one line, for notes.
func commandLine(argv []string) string {
	return strings.Join(argv, " ")
}
