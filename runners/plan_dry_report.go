package runners

// A dry run's printed report: the selection, the call table by role, the
// time table and the notes that say what was and was not counted.

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/table"
)

func (r *DryReport) notes(entries []Model, p Plan) {
	if r.Counted {
		r.countNotes(entries)
	} else {
		r.replayNotes(entries)
	}
	if r.Upper == 0 && !r.allLocal() {
		r.Notes = append(r.Notes, "No time estimate: give --throughput role=calls/s (e.g. chat=20,judge=40) or --probe to measure the endpoints.")
	} else if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return strings.HasPrefix(rc.Source, "probe") }) {
		r.Notes = append(r.Notes, "Probe latencies are one-token replies to a short prompt: real calls (long prompts, longer replies) take longer, so probe-based times are lower bounds.")
	}
	if p.Kind == "latency" {
		r.Notes = append(r.Notes, "The efficiency run keeps one episode in flight (paper §6.4, sequential execution).")
	}
	if r.Upper > 0 && !r.allLocal() {
		r.Notes = append(r.Notes, fmt.Sprintf("Inside a memory instance (one episode and system) commits and answers run one after another: with %d instances, at most %d calls of a role are in flight, whatever its endpoints' capacity; times are stretched accordingly.", r.Ingestions, r.Ingestions))
	}
}

// replayNotes say what a replay (DryRun) counted and how.
func (r *DryReport) replayNotes(entries []Model) {
	chatOps := false
	for _, m := range entries {
		if !m.Config.Models.Chat.Local() && slices.Contains(r.Systems, "arbormem") && m.Config.UseChat(m.Config.ArborMem.Extractors) {
			chatOps = true
		}
		if !m.Config.Models.Tokenizer.Local() {
			r.Notes = append(r.Notes, "The tokenizer role counted offline (exact Qwen3 ids, the same /tokenize returns); the real run's /tokenize calls are not counted.")
		}
	}
	if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return !rc.Local }) {
		r.Notes = append(r.Notes, "Nothing was sent to the configured endpoints: every role with endpoints was answered at once by an in-process fake, with the response cache off, so every call a run without cached replies makes is counted.")
	} else {
		r.Notes = append(r.Notes, "Every role is local (offline providers): the run makes no remote call.")
	}
	r.Notes = append(r.Notes,
		"Prompt tokens of chat roles are exact Qwen3 counts of the messages plus the chat template (5 tokens per message, 3 for the reply header); completion tokens are the max_tokens each call allows, an upper bound. Embedding and rerank calls are counted, their tokens are not.")
	if chatOps {
		r.Notes = append(r.Notes, "Memory operations were answered with what the offline rules extract (a speaking fake), so none was repaired. Calls that depend on what the model extracts are counted as the rules extract: ArborMem's fact-collision audit (at most one chat call per ingested interaction) and its fact embeddings (at most one embed call per ingested interaction); a model may extract more or less. Prompts overridden with prompts_dir are not recognised by the fake and count their repair calls.")
	}
}

// countNotes say what a plan counted from the data and what it estimated.
func (r *DryReport) countNotes(entries []Model) {
	if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return !rc.Local }) {
		r.Notes = append(r.Notes, "Nothing was run and nothing sent to the configured endpoints: the calls are counted from the data (interactions, sessions, questions, rubric items) and each system's calls per interaction and per answer.")
	} else {
		r.Notes = append(r.Notes, "Every role is local (offline providers): the run makes no remote call.")
	}
	if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return rc.Estimated }) {
		var names []string
		for _, m := range entries {
			modelPath := m.Config.UseChat(m.Config.ArborMem.Extractors)
			if n := ratiosFor(r.Benchmark, modelPath).Name; !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Rows marked estimated rest on ArborMem's shares that depend on memory state (the collision audit per commit, localizations that reach the reranker, commits with facts or records to embed), taken from ratios measured once with `arbor plan --replay` (%s; runners.planRatios); a run may differ by some percent. Add --replay for the exact counts, at the cost of a run with every call answered at once.", joinAnd(names)))
	}
	r.Notes = append(r.Notes, "Prompt tokens are estimated: the data's exact Qwen3 counts (interactions for memory operations and summaries, each question's history up to its budget for answers) plus a measured per-call template overhead; completion tokens are the max_tokens each call allows, an upper bound. Bridged systems (Mem0, A-MEM, Graphiti, LiCoMemory) call their models themselves: only arbor's answer and judge calls are counted for them.")
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// Write prints the report: what the run selects, the calls and tokens by
// role, and the time estimate.
func (r *DryReport) Write(w io.Writer) error {
	var b strings.Builder
	if r.Counted {
		fmt.Fprintf(&b, "Plan of %s on %s (counted from the data: nothing run, nothing sent to the configured endpoints)\n\n", r.Kind, r.Benchmark)
	} else {
		fmt.Fprintf(&b, "Dry run of %s on %s (nothing sent to the configured endpoints)\n\n", r.Kind, r.Benchmark)
	}
	fmt.Fprintf(&b, "- selection: %d episodes, %d questions; systems %s; budgets %s; variants %s\n",
		r.Episodes, r.Questions, strings.Join(r.Systems, ", "), budgetLabels(r.Budgets), variantList(r.Variants))
	fmt.Fprintf(&b, "- work: %d memory instances ingest %d interactions in total; %d answers (samples)\n", r.Ingestions, r.Interactions, r.Samples)
	if r.Resolution.Questions > 0 {
		b.WriteString(r.Resolution.line())
	}
	if r.Failed > 0 {
		fmt.Fprintf(&b, "- %d samples failed in the dry run, e.g.: %s\n", r.Failed, r.FirstError)
	}
	if r.Counted {
		fmt.Fprintf(&b, "- the plan itself took %s on this machine (a read of the data)\n\n", human(r.Elapsed))
	} else {
		fmt.Fprintf(&b, "- the dry run itself took %s on this machine (local computation; remote calls answered at once)\n\n", human(r.Elapsed))
	}
	b.WriteString(r.callTable().Markdown())
	b.WriteString("\n")
	if r.Upper > 0 {
		if tt := r.timeTable(); len(tt.Rows) > 0 {
			b.WriteString(tt.Markdown())
		}
		fmt.Fprintf(&b, "\nEstimated wall time: %s if the roles overlap fully, %s if they run one after another.\n", human(r.Lower), human(r.Upper))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func variantList(vs []string) string {
	l := make([]string, len(vs))
	for i, v := range vs {
		l[i] = v
		if v == "" {
			l[i] = "reference"
		}
	}
	return strings.Join(l, ", ")
}

func (r *DryReport) multiModel() bool {
	return slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return rc.Model != "" })
}

func (r *DryReport) label(rc RoleCount) string {
	if r.multiModel() {
		return rc.Model + " / " + rc.Role
	}
	return rc.Role
}

func (r *DryReport) callTable() table.Table {
	t := table.Table{Title: "Model calls by role", Stub: "Role", Columns: []table.Column{
		{Name: "Endpoints"}, {Name: "In flight"},
		{Name: "Ingest calls"}, {Name: "Per interaction", Decimals: 2},
		{Name: "Question calls"}, {Name: "Per answer", Decimals: 2},
		{Name: "Prompt tokens"}, {Name: "Completion tokens (max)"},
	}}
	if r.Counted {
		t.Columns = append(t.Columns, table.Column{Name: "Counted"})
	}
	for _, rc := range r.Roles {
		ends := table.T("local")
		inflight := table.T("–")
		if !rc.Local {
			ends, inflight = table.V(float64(rc.Endpoints)), table.V(float64(rc.InFlight))
		}
		t.Rows = append(t.Rows, table.Row{Label: r.label(rc), Cells: append([]table.Cell{ends, inflight}, r.callCells(rc)...)})
		if len(rc.Systems) > 1 {
			for _, sub := range rc.Systems {
				t.Rows = append(t.Rows, table.Row{Label: sub.System, Indent: 1, Cells: append([]table.Cell{{}, {}}, r.callCells(sub)...)})
			}
		}
	}
	return t
}

// callCells are a role's (or a system's share of it) calls, rates and tokens.
func (r *DryReport) callCells(rc RoleCount) []table.Cell {
	tok, comp := table.T("–"), table.T("–")
	if rc.Role == "chat" || rc.Role == "judge" {
		tok, comp = table.V(float64(rc.PromptTokens)), table.V(float64(rc.CompletionMax))
	}
	cells := []table.Cell{
		table.V(float64(rc.IngestCalls)), ratio(rc.IngestCalls, rc.Interactions),
		table.V(float64(rc.QuestionCalls)), ratio(rc.QuestionCalls, rc.Answers),
		tok, comp,
	}
	if r.Counted {
		basis := "exact"
		if rc.Estimated {
			basis = "estimated"
		}
		if rc.Role == "chat" || rc.Role == "judge" {
			basis += "; tokens estimated"
		}
		cells = append(cells, table.T(basis))
	}
	return cells
}

func ratio(a, b int) table.Cell {
	if b == 0 {
		return table.T("–")
	}
	return table.V(float64(a) / float64(b))
}

func (r *DryReport) timeTable() table.Table {
	t := table.Table{Title: "Time estimate", Stub: "Role", Columns: []table.Column{
		{Name: "Calls"}, {Name: "Throughput", Unit: "calls/s", Decimals: 2}, {Name: "From"}, {Name: "Time"},
	}}
	for _, rc := range r.Roles {
		if rc.Local || rc.Calls() == 0 {
			continue
		}
		thr, tm := table.T("–"), table.T("no estimate")
		if rc.Throughput > 0 {
			thr, tm = table.V(rc.Throughput), table.T(human(rc.Time))
		}
		t.Rows = append(t.Rows, table.Row{Label: r.label(rc), Cells: []table.Cell{table.V(float64(rc.Calls())), thr, table.T(orDash(rc.Source)), tm}})
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// human prints a duration for people: "2h 05m", "3m 20s", "4.2s".
func human(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
