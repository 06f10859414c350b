package runners

import (
	"context"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

// planTolerance is how far a plan's estimated call counts may stray from a
// real run's recorded ones on the test fixtures: the estimated shares
// (planRatios) were measured on other data, and ArborMem's collision audit
// depends on what a conversation says. The audit is at most a tenth of a
// commit's chat calls (0.64 of 6.64 on the LoCoMo development half); the
// fixture's short dialogues make none, so the plan is 11% high there.
const planTolerance = 0.15

// TestCountMatchesRun compares a plan counted from the data with a real run
// of the same plan against a counting fake that replies by the offline
// rules: selection and work exactly, answers and summary calls exactly, and
// ArborMem's memory-operation calls within planTolerance.
func TestCountMatchesRun(t *testing.T) {
	data := xpLoCoMo(t, 3, 2)
	systems := []string{"summary", "arbormem"}
	ctx := context.Background()
	cfg := xpConfig(t, xpRemoteYAML)
	rep, err := Count(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems, Budgets: []int{256, 4096}, Out: io.Discard, Log: io.Discard, Config: cfg},
		nil, DryOptions{Throughput: map[string]float64{"chat": 10}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Run.Results); !os.IsNotExist(err) {
		t.Errorf("the plan wrote into the configured results folder %s (%v)", cfg.Run.Results, err)
	}
	if rep.Episodes != 3 || rep.Questions != 6 || rep.Samples != 24 || rep.Ingestions != 6 || rep.Interactions != 24 {
		t.Errorf("plan counted %d episodes, %d questions, %d samples, %d ingestions, %d interactions; want 3, 6, 24, 6, 24",
			rep.Episodes, rep.Questions, rep.Samples, rep.Ingestions, rep.Interactions)
	}
	fake := xpFake(t, 0)
	real, err := Sweep(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems, Budgets: []int{256, 4096}, Out: io.Discard, Log: io.Discard,
		Config: xpConfig(t, xpChatYAML(12, fake.URL))})
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, real)
	bySystem := func(o *Outcome) map[string][2]int {
		m := map[string][2]int{}
		for _, e := range o.Episodes {
			c := m[e.System]
			c[0] += xpChatCalls(e.Calls)
			m[e.System] = c
		}
		for _, s := range o.Samples {
			c := m[s.System]
			c[1] += xpChatCalls(s.Calls)
			m[s.System] = c
		}
		return m
	}
	got := bySystem(real)
	chat := xpRole(t, rep, "chat")
	for _, sub := range chat.Systems {
		want := got[sub.System]
		if sub.QuestionCalls != want[1] {
			t.Errorf("%s: plan counted %d question chat calls, the run made %d", sub.System, sub.QuestionCalls, want[1])
		}
		if sub.System == "summary" && sub.IngestCalls != want[0] {
			t.Errorf("summary: plan counted %d summary updates, the run made %d", sub.IngestCalls, want[0])
		}
		if off := math.Abs(float64(sub.IngestCalls-want[0])) / float64(max(want[0], 1)); off > planTolerance {
			t.Errorf("%s: plan counted %d ingest chat calls, the run made %d (%.0f%% off, tolerance %.0f%%)", sub.System, sub.IngestCalls, want[0], 100*off, 100*planTolerance)
		}
		if sub.System == "arbormem" && !sub.Estimated {
			t.Errorf("arbormem's memory-operation calls rest on a measured ratio but are not marked estimated")
		}
	}
	if int(fake.PathStats("/v1/chat/completions").Requests) == 0 {
		t.Fatal("the real run made no chat call")
	}
	// LoCoMo is scored by F1: the judge role is configured but never called.
	if judge := xpRole(t, rep, "judge"); judge.Calls() != 0 {
		t.Errorf("judge counted %d calls on LoCoMo", judge.Calls())
	}
	var out strings.Builder
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Plan of eval on locomo", "counted from the data", "3 episodes, 6 questions", "estimated", "Estimated wall time", "runners.planRatios"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCountSummaryRule checks the summary baseline's updates, counted from
// session ids alone, against the chat calls the real baseline makes on
// BranchMemEval, whose every-8 rule, session ends and canonical
// interactions make the count least trivial.
func TestCountSummaryRule(t *testing.T) {
	fake := xpFake(t, 0)
	cfg := xpConfig(t, xpChatYAML(8, fake.URL))
	p := Plan{Benchmark: "branchmemeval", Limit: 3, Systems: []string{"summary"}, Config: cfg, Out: io.Discard, Log: io.Discard}
	rep, err := Count(context.Background(), p, nil, DryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, real)
	ing, q := xpChatSplit(real)
	chat := xpRole(t, rep, "chat")
	if chat.IngestCalls != ing || chat.QuestionCalls != q || chat.Estimated {
		t.Errorf("plan counted %d summary updates and %d answers (estimated: %v), the run made %d and %d", chat.IngestCalls, chat.QuestionCalls, chat.Estimated, ing, q)
	}
	if ing < rep.Interactions/cfg.Baselines.SummaryEvery {
		t.Errorf("%d summary updates for %d interactions: fewer than the every-%d rule alone makes", ing, rep.Interactions, cfg.Baselines.SummaryEvery)
	}
}

// TestCountMatchesReplayJudged compares the plan with the exact replay on
// the BEAM fixture under a remote chat and judge: one judgement per rubric
// item and the summary updates exactly, every role's total within
// planTolerance.
func TestCountMatchesReplayJudged(t *testing.T) {
	cfg := xpConfig(t, xpRemoteYAML)
	p := Plan{Benchmark: "beam", Data: "../datasets/beam/testdata/chats/100K", Out: io.Discard, Log: io.Discard, Config: cfg}
	ctx := context.Background()
	plan, err := Count(ctx, p, nil, DryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	replay, err := DryRun(ctx, p, nil, DryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Samples != replay.Samples || plan.Interactions != replay.Interactions || plan.Questions != replay.Questions {
		t.Errorf("plan: %d samples, %d interactions, %d questions; replay: %d, %d, %d", plan.Samples, plan.Interactions, plan.Questions, replay.Samples, replay.Interactions, replay.Questions)
	}
	judge, want := xpRole(t, plan, "judge"), xpRole(t, replay, "judge")
	if judge.Calls() == 0 || judge.Calls() != want.Calls() {
		t.Errorf("plan counted %d judgements, the replay made %d", judge.Calls(), want.Calls())
	}
	for _, role := range []string{"chat", "judge"} {
		got, want := xpRole(t, plan, role), xpRole(t, replay, role)
		if off := math.Abs(float64(got.Calls()-want.Calls())) / float64(max(want.Calls(), 1)); off > planTolerance {
			t.Errorf("%s: plan counted %d calls, the replay made %d (%.0f%% off)", role, got.Calls(), want.Calls(), 100*off)
		}
		for _, sub := range got.Systems {
			if sub.System != "summary" {
				continue
			}
			for _, w := range want.Systems {
				if w.System == "summary" && (w.IngestCalls != sub.IngestCalls || w.QuestionCalls != sub.QuestionCalls) {
					t.Errorf("%s/summary: plan %d + %d calls, replay %d + %d", role, sub.IngestCalls, sub.QuestionCalls, w.IngestCalls, w.QuestionCalls)
				}
			}
		}
	}
}
