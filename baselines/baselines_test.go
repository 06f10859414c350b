package baselines

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/datasets/beam"
	"github.com/arbor-eval/arbor/datasets/locomo"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// fakeChat is a deterministic summariser that records every request.
type fakeChat struct {
	mu   sync.Mutex
	reqs []llm.ChatRequest
}

func (f *fakeChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	// Echo the user lines of the new interactions, so the summary depends on
	// the input and nothing else.
	var keep []string
	for _, l := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
		if strings.HasPrefix(l, "user: ") {
			keep = append(keep, "The user said: "+strings.TrimPrefix(l, "user: "))
		}
	}
	return llm.ChatResponse{Content: strings.Join(keep, "\n")}, nil
}

func (f *fakeChat) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func deps(bench string) Deps {
	return Deps{Cfg: config.DefaultBaselines(), Tokens: tokens.Default(), Benchmark: bench}
}

func TestConformance(t *testing.T) {
	type variant struct {
		name, baseline string
		d              Deps
	}
	var vs []variant
	for _, n := range Names() {
		for _, bench := range []string{"longmemeval", BranchMemEval} {
			vs = append(vs, variant{n + "/" + bench, n, summaryEvery4(deps(bench))})
		}
	}
	beam := deps(BEAM)
	beam.Chunker = ChunkBySession
	vs = append(vs, variant{"bm25/beam-chunks", "bm25", beam})
	for _, bench := range []string{"locomo", BranchMemEval} {
		d := summaryEvery4(deps(bench))
		d.Chat = &fakeChat{}
		vs = append(vs, variant{"summary-chat/" + bench, "summary", d})
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			memorytest.Run(t, Factory(v.baseline, v.d), memorytest.WithCounter(v.d.Tokens))
		})
	}
}

// summaryEvery4 makes BranchMemEval summaries update every 4 interactions:
// the conformance suite recalls after 5 commits, before the paper's 8 would
// have written any summary (and the bundle holds summaries only).
func summaryEvery4(d Deps) Deps {
	if d.Benchmark == BranchMemEval {
		d.Cfg.SummaryEvery = 4
	}
	return d
}

func TestNew(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"bm25", "full", "recent", "summary"}) {
		t.Errorf("Names() = %v", got)
	}
	cases := []struct {
		name    string
		base    string
		mutate  func(*Deps)
		wantErr string
	}{
		{"unknown", "mem0", nil, `unknown baseline "mem0"`},
		{"no counter", "full", func(d *Deps) { d.Tokens = nil }, "no token counter"},
		{"negative", "recent", func(d *Deps) { d.Cfg.RecentTurns = -1 }, "baselines.recent_turns: -1"},
		{"zero override", "recent", func(d *Deps) { d.Cfg.RecentTurnsByBenchmark = map[string]int{"beam": 0} }, "baselines.recent_turns_by_benchmark.beam: 0"},
		{"bad mode", "summary", func(d *Deps) { d.Cfg.Summaries = "gpt" }, `baselines.summaries: "gpt"`},
		{"chat without client", "summary", func(d *Deps) { d.Cfg.Summaries = "chat" }, "no chat model"},
		{"zero config takes defaults", "bm25", func(d *Deps) { d.Cfg = config.Baselines{} }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := deps("")
			if c.mutate != nil {
				c.mutate(&d)
			}
			_, err := New(c.base, d)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("New error = %v, want it to contain %q", err, c.wantErr)
			}
		})
	}
}

func TestHeuristic(t *testing.T) {
	d := deps("")
	withChat := d
	withChat.Chat = &fakeChat{}
	forced := withChat
	forced.Cfg.Summaries = "heuristic"
	cases := []struct {
		base string
		d    Deps
		want bool
	}{
		{"full", d, false}, {"bm25", d, false}, {"summary", d, true}, {"summary", withChat, false}, {"summary", forced, true},
	}
	for _, c := range cases {
		if got := Heuristic(c.base, c.d); got != c.want {
			t.Errorf("Heuristic(%s, chat=%v, mode=%q) = %v, want %v", c.base, c.d.Chat != nil, c.d.Cfg.Summaries, got, c.want)
		}
		sys, err := New(c.base, c.d)
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := sys.(interface{ Heuristic() bool }); !ok || h.Heuristic() != c.want {
			t.Errorf("%s: Heuristic method disagrees with Heuristic(name, deps) = %v", c.base, c.want)
		}
	}
}

var t0 = time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC)

// numbered makes n interactions in session sess, i-th saying "fact i".
func numbered(n int, sess string, from int) []dialog.Interaction {
	var out []dialog.Interaction
	for i := from; i < from+n; i++ {
		id := fmt.Sprintf("i%03d", i)
		out = append(out, dialog.Interaction{ID: id, Session: sess, Time: t0.Add(time.Duration(i) * time.Hour), Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Content: fmt.Sprintf("Note number %d: the locker code is %d.", i, 1000+i)},
			{Role: dialog.RoleAssistant, Content: "Noted."},
		}})
	}
	return out
}

func commitAll(t *testing.T, sys memory.System, ins []dialog.Interaction) {
	t.Helper()
	for _, in := range ins {
		if err := sys.Commit(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
}

func recall(t *testing.T, sys memory.System, text string, budget int) memory.Bundle {
	t.Helper()
	b, err := sys.Recall(context.Background(), memory.Query{ID: "q", Text: text, Time: t0.Add(1000 * time.Hour), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sourceIDs(b memory.Bundle) []string {
	var ids []string
	for _, it := range b.Items {
		ids = append(ids, strings.Join(it.Sources, "+"))
	}
	return ids
}

func TestItemTextCarriesTime(t *testing.T) {
	for _, base := range Names() {
		sys, err := New(base, deps(BranchMemEval))
		if err != nil {
			t.Fatal(err)
		}
		commitAll(t, sys, numbered(8, "", 0))
		b := recall(t, sys, "locker code note", 1<<20)
		if len(b.Items) == 0 {
			t.Fatalf("%s: empty bundle", base)
		}
		want := map[string]memory.Channel{"full": memory.ChannelLocal, "recent": memory.ChannelLocal, "bm25": memory.ChannelTurn, "summary": memory.ChannelSummary}[base]
		it := b.Items[0]
		if it.Channel != want {
			t.Errorf("%s: channel %s, want %s", base, it.Channel, want)
		}
		if it.Time.IsZero() || !strings.HasPrefix(it.Text, "["+dialog.FormatTime(it.Time)+"] ") {
			t.Errorf("%s: item does not start with its timestamp: time %v, text %q", base, it.Time, it.Text)
		}
	}
	sys, _ := New("full", deps(""))
	commitAll(t, sys, numbered(1, "", 0))
	if got := recall(t, sys, "x", 100).Items[0].Text; got != "[2023-05-30 23:40] user: Note number 0: the locker code is 1000.\nassistant: Noted." {
		t.Errorf("full item text = %q", got)
	}
}

func TestFullKeepsNewestInOrder(t *testing.T) {
	d := deps("")
	sys, _ := New("full", d)
	ins := numbered(6, "", 0)
	commitAll(t, sys, ins)
	per := d.Tokens.Count(stampedText(ins[5]))
	b := recall(t, sys, "anything", 2*per+per/2)
	if got := sourceIDs(b); !slices.Equal(got, []string{"i004", "i005"}) {
		t.Errorf("full at a two-interaction budget kept %v, want [i004 i005]", got)
	}
	if got := recall(t, sys, "anything", per-1); len(got.Items) != 0 {
		t.Errorf("budget below the newest interaction kept %v", sourceIDs(got))
	}
}

func TestRecentCap(t *testing.T) {
	ins := numbered(40, "", 0)
	for _, c := range []struct {
		bench    string
		override map[string]int
		want     int
	}{
		{BranchMemEval, nil, 32}, {"locomo", nil, 32}, {"longmemeval", nil, 32}, {BEAM, nil, 32},
		{"locomo", map[string]int{"locomo": 10}, 10}, {"beam", map[string]int{"locomo": 10}, 32},
	} {
		d := deps(c.bench)
		d.Cfg.RecentTurnsByBenchmark = c.override
		sys, _ := New("recent", d)
		commitAll(t, sys, ins)
		b := recall(t, sys, "what is the locker code", 1<<20)
		if len(b.Items) != c.want {
			t.Errorf("recent on %s: %d items, want %d", c.bench, len(b.Items), c.want)
			continue
		}
		if last := b.Items[len(b.Items)-1].Sources[0]; last != "i039" {
			t.Errorf("recent on %s: newest item %s, want i039", c.bench, last)
		}
		if first := b.Items[0].Sources[0]; first != fmt.Sprintf("i%03d", 40-c.want) {
			t.Errorf("recent on %s: oldest item %s", c.bench, first)
		}
	}
}

func topicInteractions() []dialog.Interaction {
	texts := []string{
		"I adopted a cat named Miso last spring.",
		"The quarterly report is due on Friday.",
		"Miso the cat loves the sunny windowsill.",
		"My sister lives in Valencia near the beach.",
		"I bought a new espresso machine for the kitchen.",
	}
	var out []dialog.Interaction
	for i, tx := range texts {
		id := fmt.Sprintf("t%d", i)
		out = append(out, dialog.Interaction{ID: id, Session: fmt.Sprintf("s%d", i/2), Time: t0.Add(time.Duration(i) * time.Hour),
			Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: tx}, {Role: dialog.RoleAssistant, Content: "Thanks for telling me."}}})
	}
	return out
}

func TestBM25Retrieval(t *testing.T) {
	sys, _ := New("bm25", deps("locomo"))
	commitAll(t, sys, topicInteractions())
	b := recall(t, sys, "What is my cat Miso like?", 1<<20)
	if got := sourceIDs(b); !slices.Equal(got, []string{"t0", "t2"}) {
		t.Errorf("bm25 for the cat question returned %v, want [t0 t2] in chronological order", got)
	}
	if got := recall(t, sys, "zeppelin", 1<<20); len(got.Items) != 0 {
		t.Errorf("a query sharing no term returned %v", sourceIDs(got))
	}
}

func TestBM25UnitCap(t *testing.T) {
	for _, c := range []struct {
		bench string
		want  int
	}{{"longmemeval", 5}, {BEAM, 3}} {
		d := deps(c.bench)
		d.Cfg.BM25Units, d.Cfg.BM25ChunksBEAM = 5, 3
		sys, _ := New("bm25", d)
		commitAll(t, sys, numbered(20, "", 0))
		if b := recall(t, sys, "locker code note", 1<<20); len(b.Items) != c.want {
			t.Errorf("%s: %d units, want the cap %d", c.bench, len(b.Items), c.want)
		}
	}
}

func TestBM25Chunks(t *testing.T) {
	d := deps(BEAM)
	d.Chunker = ChunkBySession
	sys, _ := New("bm25", d)
	ins := topicInteractions() // sessions s0: t0 t1, s1: t2 t3, s2: t4
	commitAll(t, sys, ins[:3])
	// t2 opened chunk s1; it grows after being indexed and must still be found.
	b := recall(t, sys, "Valencia beach", 1<<20)
	if len(b.Items) != 0 {
		t.Errorf("Valencia found before it was committed: %v", sourceIDs(b))
	}
	commitAll(t, sys, ins[3:])
	b = recall(t, sys, "Where does my sister live? Valencia", 1<<20)
	if got := sourceIDs(b); !slices.Equal(got, []string{"t2+t3"}) {
		t.Fatalf("chunked bm25 returned %v, want the s1 chunk [t2+t3]", got)
	}
	it := b.Items[0]
	if !strings.Contains(it.Text, "Miso the cat") || !strings.Contains(it.Text, "Valencia") || it.Tokens != d.Tokens.Count(it.Text) {
		t.Errorf("chunk item = %+v", it)
	}
	if !it.Time.Equal(ins[3].Time) {
		t.Errorf("chunk time %v, want its latest interaction's %v", it.Time, ins[3].Time)
	}
}

func TestSummaryUpdatesEvery8OnBME(t *testing.T) {
	chat := &fakeChat{}
	d := deps(BranchMemEval)
	d.Chat = chat
	sys, _ := New("summary", d)
	ins := numbered(20, "", 0)
	for i, in := range ins {
		commitAll(t, sys, []dialog.Interaction{in})
		if want := (i + 1) / 8; chat.count() != want {
			t.Fatalf("after %d interactions: %d summary calls, want %d", i+1, chat.count(), want)
		}
	}
	b := recall(t, sys, "locker code", 1<<20)
	if len(b.Items) != 1 || b.Items[0].Channel != memory.ChannelSummary {
		t.Fatalf("recall = %v, want the summary alone (no raw tail by default)", sourceIDs(b))
	}
	if n := len(b.Items[0].Sources); n != 16 {
		t.Errorf("the summary cites %d interactions, want 16", n)
	}
	if chat.count() != 2 {
		t.Errorf("recall on BranchMemEval made %d summary calls, want the 2 of the every-8 rule", chat.count())
	}
	d.Cfg.SummaryRawTail = true
	withTail, _ := New("summary", d)
	commitAll(t, withTail, ins)
	b = recall(t, withTail, "locker code", 1<<20)
	if got := sourceIDs(memory.Bundle{Items: b.Items[1:]}); len(b.Items) != 5 || !slices.Equal(got, []string{"i016", "i017", "i018", "i019"}) {
		t.Errorf("summary_raw_tail: raw tail = %v, want the 4 interactions since the last update", got)
	}
	second := chat.reqs[1]
	p := second.Messages[0].Content
	if !strings.Contains(p, "### SUMMARY SO FAR") || !strings.Contains(p, "The user said: Note number 7:") {
		t.Errorf("the second update does not carry the first summary:\n%s", p)
	}
	if strings.Contains(p, "user: Note number 7:") || !strings.Contains(p, "user: Note number 15:") || strings.Contains(p, "Note number 16") {
		t.Errorf("the second update must send exactly interactions 8..15 as new:\n%s", p)
	}
	if second.Temperature != 0 || second.MaxTokens != SummaryMaxTokens || second.Purpose != "session_summary" {
		t.Errorf("summary request settings = %+v", second)
	}
}

func TestSummaryPerSession(t *testing.T) {
	chat := &fakeChat{}
	d := deps("locomo")
	d.Chat = chat
	sys, _ := New("summary", d)
	ins := append(numbered(10, "S1", 0), numbered(3, "S2", 10)...)
	commitAll(t, sys, ins)
	if chat.count() != 1 {
		t.Fatalf("%d summary calls, want 1 (S1 closed when S2 began; no every-8 rule off BranchMemEval)", chat.count())
	}
	// The question comes after S2 has ended: S2 is summarised too, and the
	// bundle holds the two summaries and no raw turn.
	b := recall(t, sys, "locker", 1<<20)
	if got := sourceIDs(b); len(got) != 2 || b.Items[0].Channel != memory.ChannelSummary || b.Items[1].Channel != memory.ChannelSummary ||
		!strings.Contains(b.Items[0].Text, "session S1") || !strings.Contains(b.Items[1].Text, "session S2") {
		t.Fatalf("recall = %v, want the summaries of S1 and S2", got)
	}
	if chat.count() != 2 {
		t.Errorf("%d summary calls after the question, want 2", chat.count())
	}
	// Recalling again (another budget) summarises nothing more.
	small := recall(t, sys, "locker", b.Items[1].Tokens)
	if got := sourceIDs(small); len(got) != 1 || !strings.HasPrefix(got[0], "i010") || chat.count() != 2 {
		t.Errorf("tight budget kept %v (%d calls), want the newest summary alone", got, chat.count())
	}
	// A later interaction in S2 is folded into S2's summary at the next question.
	commitAll(t, sys, numbered(1, "S2", 13))
	b = recall(t, sys, "locker", 1<<20)
	if n := len(b.Items[1].Sources); len(b.Items) != 2 || n != 4 {
		t.Errorf("after one more S2 interaction: %v, want S2's summary to cite 4", sourceIDs(b))
	}
}

// TestSummaryHoldsNoRawTurns: by default no item of a summary bundle is a
// raw interaction, on any benchmark; summary_raw_tail brings the tail back.
func TestSummaryHoldsNoRawTurns(t *testing.T) {
	ins := memorytest.Conversation()
	for _, bench := range []string{"locomo", "longmemeval", BEAM, BranchMemEval} {
		for _, tail := range []bool{false, true} {
			d := deps(bench)
			d.Cfg.SummaryRawTail = tail
			sys, _ := New("summary", d)
			commitAll(t, sys, ins)
			raw := 0
			for _, it := range recall(t, sys, "budget", 1<<20).Items {
				for _, in := range ins {
					if it.Text == stampedText(in) {
						raw++
					}
				}
			}
			switch {
			case !tail && raw != 0:
				t.Errorf("%s: %d raw interactions in the bundle, want none", bench, raw)
			case tail && bench == BranchMemEval && raw == 0:
				t.Errorf("%s with summary_raw_tail: no raw interaction in the bundle", bench)
			}
		}
	}
}

func TestHeuristicSummary(t *testing.T) {
	sys, _ := New("summary", deps("locomo"))
	ins := memorytest.Conversation()
	commitAll(t, sys, ins)
	b := recall(t, sys, "budget", 1<<20)
	var sums []string
	for _, it := range b.Items {
		if it.Channel == memory.ChannelSummary {
			sums = append(sums, it.Text)
		}
	}
	if len(sums) != 3 {
		t.Fatalf("%d summaries for three sessions (the last is summarised before the question)", len(sums))
	}
	for _, want := range []string{"Casa Azul", "2,000 euros", "Fernwood Labs"} {
		if !strings.Contains(sums[0], want) {
			t.Errorf("first session summary lacks %q:\n%s", want, sums[0])
		}
	}
	if !strings.Contains(sums[1], "2. Piranesi by Susanna Clarke") {
		t.Errorf("second session summary lacks the numbered list entry:\n%s", sums[1])
	}
	if strings.Contains(sums[1], "?") {
		t.Errorf("heuristic summary kept a question:\n%s", sums[1])
	}
}

// failingChat fails while fail is set.
type failingChat struct {
	fakeChat
	fail bool
}

func (f *failingChat) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if f.fail {
		return llm.ChatResponse{}, fmt.Errorf("endpoint down")
	}
	return f.fakeChat.Chat(ctx, req)
}

func TestSummaryFailedUpdateCanBeRetried(t *testing.T) {
	chat := &failingChat{fail: true}
	d := deps(BranchMemEval)
	d.Chat = chat
	sys, _ := New("summary", d)
	ins := numbered(8, "", 0)
	commitAll(t, sys, ins[:7])
	err := sys.Commit(context.Background(), ins[7])
	if err == nil || !strings.Contains(err.Error(), "i007") || !strings.Contains(err.Error(), "endpoint down") {
		t.Fatalf("commit error = %v", err)
	}
	if b := recall(t, sys, "locker", 1<<20); len(b.Items) != 0 {
		t.Errorf("after a failed commit the bundle has %d items, want none (no summary yet)", len(b.Items))
	}
	chat.fail = false
	commitAll(t, sys, ins[7:])
	b := recall(t, sys, "locker", 1<<20)
	if len(b.Items) != 1 || len(b.Items[0].Sources) != 8 {
		t.Errorf("after the retry: %v, want one summary of 8 interactions", sourceIDs(b))
	}
}

// loadLong reads testdata/locomo-long.json (45 interactions in 3 sessions)
// through the LoCoMo loader.
func loadLong(t *testing.T) ([]dialog.Interaction, []*datasets.Question) {
	t.Helper()
	eps, err := locomo.Load(context.Background(), "testdata/locomo-long.json", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ins []dialog.Interaction
	var qs []*datasets.Question
	for _, s := range eps[0].Steps {
		if s.Interaction != nil {
			ins = append(ins, *s.Interaction)
		} else {
			qs = append(qs, s.Question)
		}
	}
	return ins, qs
}

// TestRecentDiffersFromFullOnLoCoMo: on a LoCoMo conversation longer than 32
// interactions, recent keeps the latest 32 and its answer prompt is shorter
// than full-context's, at the paper's budget where full keeps everything.
func TestRecentDiffersFromFullOnLoCoMo(t *testing.T) {
	ins, qs := loadLong(t)
	if len(ins) <= 32 {
		t.Fatalf("fixture has %d interactions, want more than 32", len(ins))
	}
	c := tokens.Default()
	got := map[string][2]int{}
	for _, name := range []string{"full", "recent"} {
		sys, err := New(name, deps("locomo"))
		if err != nil {
			t.Fatal(err)
		}
		commitAll(t, sys, ins)
		q := memory.Query{ID: qs[0].ID, Text: qs[0].Text, Time: qs[0].Time, Budget: 30968}
		b, err := sys.Recall(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := answer.RenderShared(nil, q, b)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range msgs {
			n += c.Count(m.Content)
		}
		got[name] = [2]int{len(b.Items), n}
	}
	if got["full"][0] != len(ins) || got["recent"][0] != 32 {
		t.Errorf("items: full %d, recent %d; want %d and 32", got["full"][0], got["recent"][0], len(ins))
	}
	if got["recent"][1] >= got["full"][1] {
		t.Errorf("prompt tokens: recent %d, full %d; recent must be smaller", got["recent"][1], got["full"][1])
	}
}

var _ = flag.Bool("update", false, "rewrite golden files under testdata")

// TestBM25BEAMTurnChunks: on the BEAM fixture, BM25 indexes exactly as many
// units as BEAM's own turn_chunk retrieval builds documents (one per turn of
// every batch, mohammadtavakoli78/BEAM long_term_methods.py), counted here
// straight from the chat files, not through the loader.
func TestBM25BEAMTurnChunks(t *testing.T) {
	const split = "../datasets/beam/testdata/chats/100K"
	eps, err := beam.Load(context.Background(), split, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, ep := range eps {
		sys, err := New("bm25", deps(BEAM))
		if err != nil {
			t.Fatal(err)
		}
		pairs := 0
		for _, s := range ep.Steps {
			if s.Interaction != nil {
				commitAll(t, sys, []dialog.Interaction{*s.Interaction})
				pairs++
			}
		}
		units := len(sys.(*bm25).units)
		want := beamTurnChunks(t, filepath.Join(split, ep.ID))
		if units != want {
			t.Errorf("chat %s: %d BM25 units, want BEAM's %d turn chunks", ep.ID, units, want)
		}
		fmt.Fprintf(&out, "chat %s: %d interactions, %d turn chunks\n", ep.ID, pairs, units)
	}
	tabletest.Golden(t, "testdata/beam_turn_chunks.golden", []byte(out.String()))
}

// beamTurnChunks counts turn chunks as BEAM's create_chunking does: one per
// element of every batch's "turns" (chat_trunecated.json when present, as its
// answer_generation.py reads).
func beamTurnChunks(t *testing.T, dir string) int {
	t.Helper()
	file := filepath.Join(dir, "chat_trunecated.json")
	if _, err := os.Stat(file); err != nil {
		file = filepath.Join(dir, "chat.json")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var batches []struct {
		Turns []json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(data, &batches); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range batches {
		n += len(b.Turns)
	}
	return n
}
