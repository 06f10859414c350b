package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// ingestTotals is the commit side of one configuration's episodes.
type ingestTotals struct {
	interactions int
	seconds      float64
	// calls holds the ingest calls by role in Count and the token fields.
	calls map[string]record.Calls
}

// ingestByRun sums the commit side of every episode a configuration
// answered questions in. An EpisodeStat for the episode is used when there
// is one. Otherwise the samples stand in: Latency.Ingested and
// IngestPerInteraction, and the Ingest* call fields, are read as cumulative
// over the episode up to the question (as Latency documents), so the
// episode's largest values are its totals.
func ingestByRun(samples []record.Sample, episodes []record.EpisodeStat) map[runKey]*ingestTotals {
	type epKey struct{ bench, episode, system, variant string }
	eps := map[epKey]record.EpisodeStat{}
	for _, e := range episodes {
		eps[epKey{e.Benchmark, e.Episode, canonSystem(e.System), e.Variant}] = e
	}
	bySample := map[epKey][]record.Sample{}
	var order []epKey
	for _, s := range samples {
		k := epKey{s.Benchmark, s.Episode, s.System, s.Variant}
		if _, ok := bySample[k]; !ok {
			order = append(order, k)
		}
		bySample[k] = append(bySample[k], s)
	}
	out := map[runKey]*ingestTotals{}
	for _, k := range order {
		rk := runKey{k.system, k.variant}
		in := out[rk]
		if in == nil {
			in = &ingestTotals{calls: map[string]record.Calls{}}
			out[rk] = in
		}
		if e, ok := eps[k]; ok {
			in.interactions += e.Committed
			in.seconds += e.IngestSeconds
			for role, c := range e.Calls {
				in.calls[role] = addCalls(in.calls[role], c.Count, c.PromptTokens, c.CompletionTokens)
			}
			continue
		}
		most, secs := 0, 0.0
		peak := map[string]record.Calls{}
		for _, s := range bySample[k] {
			if s.Latency.Ingested > most {
				most, secs = s.Latency.Ingested, s.Latency.IngestPerInteraction*float64(s.Latency.Ingested)
			}
			for role, c := range s.Calls {
				p := peak[role]
				p.Count = max(p.Count, c.IngestCount)
				p.PromptTokens = max(p.PromptTokens, c.IngestPromptTokens)
				p.CompletionTokens = max(p.CompletionTokens, c.IngestCompletionTokens)
				peak[role] = p
			}
		}
		in.interactions += most
		in.seconds += secs
		for role, c := range peak {
			in.calls[role] = addCalls(in.calls[role], c.Count, c.PromptTokens, c.CompletionTokens)
		}
	}
	return out
}

func addCalls(c record.Calls, count, prompt, completion int) record.Calls {
	c.Count += count
	c.PromptTokens += prompt
	c.CompletionTokens += completion
	return c
}

// runsOf returns the configurations in samples in table order.
func runsOf(samples []record.Sample) []runKey {
	seen := map[runKey]bool{}
	var keys []runKey
	for _, s := range samples {
		k := runKey{s.System, s.Variant}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return orderRuns(keys)
}

// episodesFor keeps the episode records of configurations present in
// samples (for the heuristic caption).
func episodesFor(samples []record.Sample, episodes []record.EpisodeStat) []record.EpisodeStat {
	runs := runsOf(samples)
	var out []record.EpisodeStat
	for _, e := range episodes {
		if slices.Contains(runs, runKey{canonSystem(e.System), e.Variant}) {
			out = append(out, e)
		}
	}
	return out
}

// LatencyTable is the matched efficiency comparison of paper Table
// "efficiency", one row per system: ingest time per committed interaction,
// mean query preparation, time to first token and full query time per
// question (paper §6.4), total time in minutes and case throughput in
// questions per hour. Total time is all commit time plus all full-query
// time, as if run sequentially as in the paper; throughput is questions over
// total time. Failed samples count toward totals but not toward the
// per-question means. Best per column is bold (lower for times, higher for
// throughput).
func LatencyTable(samples []record.Sample, episodes []record.EpisodeStat) table.Table {
	samples = dedupeSamples(samples)
	ing := ingestByRun(samples, episodes)
	t := table.Table{
		Title: "Matched efficiency comparison",
		Stub:  "Method",
		Groups: []table.Group{
			{Name: "Memory Construction", Span: 1}, {Name: "Query Time", Span: 3}, {Name: "End-to-End", Span: 2},
		},
		Columns: []table.Column{
			{Name: "Ingest/Turn", Unit: "s", Better: table.Lower, Decimals: 3},
			{Name: "Query Prep.", Unit: "s", Better: table.Lower, Decimals: 3},
			{Name: "TTFT", Unit: "s", Better: table.Lower, Decimals: 3},
			{Name: "Full Query", Unit: "s", Better: table.Lower, Decimals: 3},
			{Name: "Total Time", Unit: "min", Better: table.Lower, Decimals: 1},
			{Name: "Case Throughput", Unit: "q/h", Better: table.Higher, Decimals: 2},
		},
		Highlight: table.Highlight{By: table.ByColumn},
	}
	errs := map[string]int{}
	var order, cached []string
	for _, k := range runsOf(samples) {
		order = append(order, k.label())
		var prep, ttft, full aggMean
		n, querySecs := 0, 0.0
		for _, s := range samples {
			if s.System != k.system || s.Variant != k.variant {
				continue
			}
			n++
			querySecs += s.Latency.FullQuery
			if s.Error != "" {
				errs[k.label()]++
				continue
			}
			prep.add(s.Latency.QueryPrep)
			ttft.add(s.Latency.TTFT)
			full.add(s.Latency.FullQuery)
		}
		in := ing[k]
		var perTurn, totalMin, throughput *float64
		if in.interactions > 0 {
			v := in.seconds / float64(in.interactions)
			perTurn = &v
		}
		if total := in.seconds + querySecs; total > 0 {
			m, q := total/60, float64(n)/(total/3600)
			totalMin, throughput = &m, &q
		}
		cells := []table.Cell{
			valueCell(perTurn), valueCell(prep.value(1)), valueCell(ttft.value(1)), valueCell(full.value(1)), valueCell(totalMin), valueCell(throughput),
		}
		if hits, calls := runCacheHits(k, samples, episodes); hits > 0 {
			// A reply from the cache takes no time: the figures would time
			// the cache (a cached run once showed 476,433 q/h and 0.0 min).
			for i := range cells {
				cells[i] = table.Cell{Text: FromCache}
			}
			cached = append(cached, fmt.Sprintf("%s %d of %d", k.label(), hits, calls))
		}
		t.Rows = append(t.Rows, table.Row{Label: k.label(), Cells: cells})
	}
	if len(cached) > 0 {
		t.Notes = append(t.Notes, "\""+FromCache+"\": model replies came from the response cache ("+strings.Join(cached, ", ")+
			"), so the timings would measure the cache, not the models; run arbor latency (cache off) for them.")
	}
	t.Caption = withHeuristic("Efficiency comparison on "+dashIfEmpty(benchList(samples))+". Times are means per ingested interaction or per question; "+
		"total time adds all ingestion and full-query time as for sequential processing. Lower is better for latency and runtime, higher for throughput.",
		heuristicNote(samples, episodesFor(samples, episodes), false))
	if e := errorNote(errs, order, "left out of the per-question means but counted in total time and throughput"); e != "" {
		t.Notes = append(t.Notes, e)
	}
	return t
}

// FromCache is what a timing cell says when its system's model replies
// came from the response cache.
const FromCache = "from cache"

// runCacheHits counts k's model calls answered from the cache, and all its
// calls, over its samples and episode records.
func runCacheHits(k runKey, samples []record.Sample, episodes []record.EpisodeStat) (hits, calls int) {
	for _, s := range samples {
		if s.System == k.system && s.Variant == k.variant {
			for _, c := range s.Calls {
				hits, calls = hits+c.CacheHits, calls+c.Count
			}
		}
	}
	for _, e := range episodes {
		if canonSystem(e.System) == canonSystem(k.system) && e.Variant == k.variant {
			for _, c := range e.Calls {
				hits, calls = hits+c.CacheHits, calls+c.Count
			}
		}
	}
	return hits, calls
}

// roleOrder lists model-call roles in table order; others follow by name.
var roleOrder = []string{"chat", "judge", "embed", "rerank"}

// CostTable reports model usage per system: model calls and prompt and
// completion tokens per ingested interaction (the commit side, from
// EpisodeStat.Calls or the samples' Ingest* fields) and per question (the
// samples' Count and token fields: answering and judging), each as a system
// total with one indented row per role, and the mean evidence tokens handed
// to the answer model per question.
func CostTable(samples []record.Sample, episodes []record.EpisodeStat) table.Table {
	samples = dedupeSamples(samples)
	ing := ingestByRun(samples, episodes)
	col := func(name string, d int) table.Column {
		return table.Column{Name: name, Decimals: d}
	}
	t := table.Table{
		Title: "Model usage",
		Stub:  "Method / role",
		Groups: []table.Group{
			{Name: "Per ingested interaction", Span: 3}, {Name: "Per question", Span: 3}, {Name: "Evidence", Span: 1}, {Name: "Cache", Span: 1},
		},
		Columns: []table.Column{
			col("Calls", 2), col("Prompt tok.", 1), col("Completion tok.", 1),
			col("Calls", 2), col("Prompt tok.", 1), col("Completion tok.", 1),
			col("Tokens/question", 1),
			{Name: "Hits", Unit: "%", Decimals: 1},
		},
	}
	hits := cacheHits(samples, episodes)
	per := func(v, n int) *float64 {
		if n == 0 {
			return nil
		}
		x := float64(v) / float64(n)
		return &x
	}
	for _, k := range runsOf(samples) {
		in := ing[k]
		asked := map[string]record.Calls{}
		var evidence aggMean
		n := 0
		for _, s := range samples {
			if s.System != k.system || s.Variant != k.variant {
				continue
			}
			n++
			evidence.add(float64(s.EvidenceTokens))
			for role, c := range s.Calls {
				asked[role] = addCalls(asked[role], c.Count, c.PromptTokens, c.CompletionTokens)
			}
		}
		roles := map[string]bool{}
		var ingTotal, askTotal record.Calls
		for r, c := range in.calls {
			roles[r] = true
			ingTotal = addCalls(ingTotal, c.Count, c.PromptTokens, c.CompletionTokens)
		}
		for r, c := range asked {
			roles[r] = true
			askTotal = addCalls(askTotal, c.Count, c.PromptTokens, c.CompletionTokens)
		}
		cells := func(i, a record.Calls) []table.Cell {
			return []table.Cell{
				valueCell(per(i.Count, in.interactions)), valueCell(per(i.PromptTokens, in.interactions)), valueCell(per(i.CompletionTokens, in.interactions)),
				valueCell(per(a.Count, n)), valueCell(per(a.PromptTokens, n)), valueCell(per(a.CompletionTokens, n)),
			}
		}
		var all [2]int
		for _, h := range hits[k] {
			all[0], all[1] = all[0]+h[0], all[1]+h[1]
		}
		t.Rows = append(t.Rows, table.Row{Label: k.label(), Cells: append(cells(ingTotal, askTotal), valueCell(evidence.value(1)), valueCell(per(100*all[0], all[1])))})
		for _, r := range orderByKnown(sortedKeysOf(roles), roleOrder, func(s string) string { return s }) {
			h := hits[k][r]
			t.Rows = append(t.Rows, table.Row{Label: r, Indent: 1, Cells: append(cells(in.calls[r], asked[r]), table.Cell{}, valueCell(per(100*h[0], h[1])))})
		}
	}
	t.Caption = withHeuristic("Model calls and tokens per ingested interaction and per question on "+dashIfEmpty(benchList(samples))+
		", in total and by role, mean evidence tokens per question, and the share of calls answered from the response cache. "+
		"A cached call counts the tokens it cost when it was made: the usage is a property of the work, not of the cache.",
		heuristicNote(samples, episodesFor(samples, episodes), false))
	return t
}

// cacheHits counts, per configuration and role, the calls served from the
// response cache and all calls ([hits, calls]): the commit side from the
// episode records, the question side from the samples.
func cacheHits(samples []record.Sample, episodes []record.EpisodeStat) map[runKey]map[string][2]int {
	out := map[runKey]map[string][2]int{}
	add := func(k runKey, calls map[string]record.Calls) {
		if out[k] == nil {
			out[k] = map[string][2]int{}
		}
		for role, c := range calls {
			h := out[k][role]
			out[k][role] = [2]int{h[0] + c.CacheHits, h[1] + c.Count}
		}
	}
	for _, e := range record.Latest(episodes, record.EpisodeStat.Key) {
		add(runKey{canonSystem(e.System), e.Variant}, e.Calls)
	}
	for _, s := range samples {
		add(runKey{s.System, s.Variant}, s.Calls)
	}
	return out
}
