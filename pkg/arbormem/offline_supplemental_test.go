package arbormem

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// twoFriends is a hand-written chat between two named people, as LoCoMo
// records them: both sides are humans speaking in the first person, turns
// are paired into interactions, one turn carries an image caption, and the
// sessions are days apart.
func twoFriends() []dialog.Interaction {
	day1 := time.Date(2024, 3, 2, 18, 0, 0, 0, time.UTC)
	day2 := time.Date(2024, 3, 9, 10, 30, 0, 0, time.UTC)
	pair := func(id string, at time.Time, a, b string) dialog.Interaction {
		return dialog.Interaction{ID: id, Session: "s" + at.Format("0102"), Time: at, Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Speaker: "Rosa", Content: a},
			{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: b},
		}}
	}
	return []dialog.Interaction{
		pair("D1:1", day1, "Hey Tomas! How was your week?", "Busy but good. Work has been a lot lately."),
		pair("D1:3", day1, "I finally joined the community orchestra. I play the cello there every Thursday.",
			"That's amazing! Music was never my thing."),
		pair("D1:5", day1, "What have you been up to on weekends?",
			"Mostly gardening. I grow tomatoes and basil on my balcony and shared a photo of a balcony full of potted plants"),
		pair("D2:1", day2, "Good morning! The weather is lovely today.", "It really is. Perfect for a walk."),
		pair("D2:3", day2, "My garden is just a few herbs on the windowsill, nothing fancy. Long day at the office though.",
			"Ha, herbs count! Mine is doing well, the tomatoes are almost ripe."),
		pair("D2:5", day2, "We should get coffee soon.", "Definitely, Rosa, let me know when you are free."),
	}
}

func offlineSystem(t *testing.T, mut ...func(*config.ArborMem, *Deps)) *System {
	t.Helper()
	return newTestSystem(t, append([]func(*config.ArborMem, *Deps){func(_ *config.ArborMem, d *Deps) { d.Routing = "" }}, mut...)...)
}

func suppItems(b memory.Bundle) []memory.Item {
	var out []memory.Item
	for _, it := range b.Items {
		if it.Block == memory.BlockSupplemental {
			out = append(out, it)
		}
	}
	return out
}

// A question asked after the conversation in the third person about what a
// speaker said in the first person reads the speaker's turn first.
func TestSupplementalFillThirdPersonQuestion(t *testing.T) {
	s := offlineSystem(t)
	mustCommit(t, s, twoFriends()...)
	q := memory.Query{ID: "q", Text: "Which instrument does Rosa play in the orchestra?", Time: time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC), Budget: 60}
	b := mustRecall(t, s, q)
	sup := suppItems(b)
	if len(sup) == 0 || b.Items[0].Block != memory.BlockSupplemental {
		t.Fatalf("want supplemental turns first, got %+v", b.Items)
	}
	if !b.Sources()["D1:3"] || !strings.Contains(sup[0].Text, "Rosa: ") || !strings.Contains(sup[0].Text, "cello") {
		t.Errorf("want Rosa's orchestra turn, got %+v", sup)
	}
	if strings.Contains(sup[0].Text, "never learned") {
		t.Errorf("Tomas's reply names no question term and must not be quoted: %q", sup[0].Text)
	}
	if b.Tokens() > q.Budget {
		t.Errorf("bundle holds %d tokens, budget %d", b.Tokens(), q.Budget)
	}
}

// When both speakers talk about the same thing, the turn of the person the
// question names ranks first.
func TestSupplementalNamedSpeakerRanksFirst(t *testing.T) {
	s := offlineSystem(t)
	mustCommit(t, s, twoFriends()...)
	for _, c := range []struct{ q, speaker string }{
		{"What does Tomas have in his garden?", "Tomas"},
		{"What does Rosa have in her garden?", "Rosa"},
	} {
		rc := &recallCtx{s: s, q: memory.Query{Text: c.q}}
		hits := rc.supplementalRank(suppNodes)
		if len(hits) == 0 {
			t.Fatalf("%q: no supplemental candidates", c.q)
		}
		top := s.forest.Nodes[hits[0].seq].Interaction.Turns[hits[0].turn]
		if top.Speaker != c.speaker || !strings.Contains(hits[0].rule, "named speaker") {
			t.Errorf("%q: top turn by %s (%s), want %s", c.q, top.Speaker, hits[0].rule, c.speaker)
		}
	}
}

// A speaker's name in the other speaker's turn is an address, not a
// statement about them: it selects nothing.
func TestSupplementalIgnoresAddress(t *testing.T) {
	s := offlineSystem(t)
	mustCommit(t, s, twoFriends()...)
	q := memory.Query{ID: "q", Text: "What about Rosa?", Time: time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC), Budget: 500}
	for _, it := range suppItems(mustRecall(t, s, q)) {
		if strings.Contains(it.Text, "Definitely, Rosa") {
			t.Errorf("a turn that only addresses Rosa was quoted: %q", it.Text)
		}
	}
}

// Under a tight budget a turn enters as the sentences holding a question
// term; with room to spare the whole turn is restored.
func TestSupplementalExcerptThenRestore(t *testing.T) {
	s := offlineSystem(t)
	mustCommit(t, s, twoFriends()...)
	at := time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC)
	q := "Where does Rosa keep her herbs?"
	tight := suppItems(mustRecall(t, s, memory.Query{ID: "t", Text: q, Time: at, Budget: 40}))
	if len(tight) == 0 || !strings.Contains(tight[0].Text, "herbs on the windowsill") || strings.Contains(tight[0].Text, "office") {
		t.Errorf("tight budget: want the matching sentence only, got %+v", tight)
	}
	roomy := suppItems(mustRecall(t, s, memory.Query{ID: "r", Text: q, Time: at, Budget: 2000}))
	joined := ""
	for _, it := range roomy {
		joined += it.Text + "\n"
	}
	if !strings.Contains(joined, "Long day at the office though.") {
		t.Errorf("roomy budget: want the whole turn restored, got %q", joined)
	}
	whole := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalExcerpt = false })
	mustCommit(t, whole, twoFriends()...)
	for _, it := range suppItems(mustRecall(t, whole, memory.Query{ID: "w", Text: q, Time: at, Budget: 60})) {
		if strings.Contains(it.Text, "herbs on the windowsill") && !strings.Contains(it.Text, "office") {
			t.Errorf("supplemental_excerpt false: want whole turns only, got %q", it.Text)
		}
	}
}

// An in-dialogue question (within the hour after the last turn) keeps the
// paper's allocation; so does supplemental_fill off and a model-backed
// extractor under auto.
func TestSupplementalFillOnlyOfflineAndDetached(t *testing.T) {
	conv := twoFriends()
	last := conv[len(conv)-1].Time
	q := memory.Query{ID: "q", Text: "Which instrument does Rosa play?", Time: last.Add(10 * time.Minute), Budget: 500}
	s := offlineSystem(t)
	mustCommit(t, s, conv...)
	if sup := suppItems(mustRecall(t, s, q)); len(sup) > 0 {
		t.Errorf("in-dialogue question: want no supplemental turns, got %+v", sup)
	}
	q.Time = last.Add(48 * time.Hour)
	cue := q
	cue.Text = "Back to the orchestra: which instrument does Rosa play?"
	if sup := suppItems(mustRecall(t, s, cue)); len(sup) > 0 {
		t.Errorf("a return cue continues the dialogue: want no supplemental turns, got %+v", sup)
	}
	off := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalFill = "off" })
	mustCommit(t, off, conv...)
	if sup := suppItems(mustRecall(t, off, q)); len(sup) > 0 {
		t.Errorf("supplemental_fill off: want no supplemental turns, got %+v", sup)
	}
	model := offlineSystem(t, func(_ *config.ArborMem, d *Deps) { d.Extractor = modelLike{} })
	mustCommit(t, model, conv...)
	if sup := suppItems(mustRecall(t, model, q)); len(sup) > 0 {
		t.Errorf("auto with model-backed memory ops: want no supplemental turns, got %+v", sup)
	}
	if _, err := New(func() config.ArborMem { c := config.DefaultArborMem(); c.SupplementalFill = "always"; return c }(), testDeps()); err == nil ||
		!strings.Contains(err.Error(), "supplemental_fill") {
		t.Errorf("want an error naming supplemental_fill, got %v", err)
	}
}

// modelLike stands for model-backed memory operations (rules underneath).
type modelLike struct{ rules.Ops }

func (modelLike) Heuristic() bool { return false }

// explain names the rule that put each supplemental turn in the bundle.
func TestExplainNamesSupplementalRule(t *testing.T) {
	s := offlineSystem(t)
	mustCommit(t, s, twoFriends()...)
	var buf bytes.Buffer
	q := memory.Query{ID: "q", Text: "Which instrument does Rosa play?", Time: time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC), Budget: 200}
	if err := Explain(&buf, s, &q); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "turn/SupplementalEvidence") || !strings.Contains(out, "D1:3 Rosa: term match, named speaker") {
		t.Errorf("explain lacks the supplemental rule:\n%s", out)
	}
}

// A matched turn brings the turn that answers it, even across
// interactions, though the answer repeats none of its words;
// supplemental_replies false leaves it out.
func TestSupplementalReplyToMatchedQuestion(t *testing.T) {
	day := time.Date(2024, 5, 4, 20, 0, 0, 0, time.UTC)
	pair := func(id, a, b string) dialog.Interaction {
		return dialog.Interaction{ID: id, Session: "s1", Time: day, Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Speaker: "Rosa", Content: a},
			{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: b},
		}}
	}
	talk := []dialog.Interaction{
		pair("D1:1", "I watched a film last night with my sister.", "Nice! What genre was the film?"),
		pair("D1:3", "A slow Korean thriller, we loved it.", "I'll add it to my list."),
		pair("D1:5", "Work starts early tomorrow, so I should sleep.", "Good night then!"),
	}
	q := memory.Query{ID: "q", Text: "What genre of film did Rosa watch?", Time: day.AddDate(0, 1, 0), Budget: 200}
	for _, on := range []bool{true, false} {
		s := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalReplies = on })
		mustCommit(t, s, talk...)
		sup := suppItems(mustRecall(t, s, q))
		got := memory.Bundle{Items: sup}.Sources()["D1:3"]
		if got != on {
			t.Errorf("supplemental_replies %v: the answering turn D1:3 quoted = %v; supplemental %+v", on, got, sup)
		}
		if !on {
			continue
		}
		var buf bytes.Buffer
		if err := Explain(&buf, s, &q); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "Rosa: reply to Tomas's matching turn") {
			t.Errorf("explain does not name the reply rule:\n%s", buf.String())
		}
	}
}

// A question naming a date reads the named speaker's turns of that date,
// though they hold none of its words; supplemental_dates false does not.
func TestSupplementalDateMatch(t *testing.T) {
	march := time.Date(2024, 3, 10, 18, 0, 0, 0, time.UTC)
	may := time.Date(2024, 5, 25, 18, 0, 0, 0, time.UTC)
	talk := []dialog.Interaction{
		{ID: "D1:1", Session: "s1", Time: march, Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Speaker: "Rosa", Content: "I baked bread for the neighbours this morning."},
			{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: "Lucky neighbours!"}}},
		{ID: "D2:1", Session: "s2", Time: may, Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Speaker: "Rosa", Content: "Guess what, I made a lemon tart for the street party!"},
			{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: "Save me a slice."}}},
	}
	at := time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		q  string
		on bool
	}{
		{"What dessert did Rosa prepare in May 2024?", true},
		{"What dessert did Rosa prepare on 25 May, 2024?", true},
		{"What dessert did Rosa prepare in May 2024?", false},
	} {
		s := offlineSystem(t, func(cf *config.ArborMem, _ *Deps) { cf.SupplementalDates = c.on })
		mustCommit(t, s, talk...)
		sup := suppItems(mustRecall(t, s, memory.Query{ID: "q", Text: c.q, Time: at, Budget: 300}))
		src := memory.Bundle{Items: sup}.Sources()
		if src["D2:1"] != c.on || src["D1:1"] {
			t.Errorf("%q (supplemental_dates %v): supplemental %+v", c.q, c.on, sup)
		}
	}
}

func TestQuestionDates(t *testing.T) {
	f := &Forest{}
	// An undated node sorts first and must not stretch the years a yearless date spans.
	for i, at := range []time.Time{{}, time.Date(2022, 11, 3, 0, 0, 0, 0, time.UTC), time.Date(2023, 8, 1, 0, 0, 0, 0, time.UTC)} {
		f.Nodes = append(f.Nodes, &Node{Seq: i, Interaction: dialog.Interaction{ID: "x", Time: at}})
		f.byTime = append(f.byTime, i)
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q    string
		want [][2]time.Time
	}{
		{"What did Rosa do on 25 May, 2023?", [][2]time.Time{{day(2023, 5, 24), day(2023, 5, 27)}}},
		{"What did Rosa do on May 25, 2023?", [][2]time.Time{{day(2023, 5, 24), day(2023, 5, 27)}}},
		{"What did Rosa start in December 2022?", [][2]time.Time{{day(2022, 12, 1), day(2023, 1, 1)}}},
		{"Where did Rosa go in May?", [][2]time.Time{{day(2022, 5, 1), day(2022, 6, 1)}, {day(2023, 5, 1), day(2023, 6, 1)}}},
		{"May I ask what Rosa likes?", nil},
		{"What does Rosa like?", nil},
		{"What did Rosa do on May 40, 2023?", nil},
	} {
		got := questionDates(c.q, f)
		if len(got) != len(c.want) {
			t.Errorf("%q: windows %v, want %v", c.q, got, c.want)
			continue
		}
		for i := range got {
			if !got[i][0].Equal(c.want[i][0]) || !got[i][1].Equal(c.want[i][1]) {
				t.Errorf("%q: window %d = %v, want %v", c.q, i, got[i], c.want[i])
			}
		}
	}
}

// TestSupplementalWholeShare: under a budget that quotes only the matching
// sentence, supplemental_whole_share lets the best-ranked turn in whole
// (with the sentence after the match), and 0 keeps the excerpt.
func TestSupplementalWholeShare(t *testing.T) {
	at := time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC)
	q := "Where does Rosa keep her herbs?"
	for _, tc := range []struct {
		share  float64
		office bool
	}{{0, false}, {1, true}} {
		s := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalWholeShare = tc.share })
		mustCommit(t, s, twoFriends()...)
		joined := ""
		for _, it := range suppItems(mustRecall(t, s, memory.Query{ID: "t", Text: q, Time: at, Budget: 50})) {
			joined += it.Text + "\n"
		}
		if !strings.Contains(joined, "herbs on the windowsill") || strings.Contains(joined, "office") != tc.office {
			t.Errorf("supplemental_whole_share %v at 50 tokens: got %q, want the rest of the turn: %v", tc.share, joined, tc.office)
		}
	}
}

// TestWindow: the sentence whose question terms weigh most, with its
// neighbours, sentences skipped between them marked; nothing when no
// sentence matches or the window is the whole turn.
func TestWindow(t *testing.T) {
	idf := map[string]float64{"potteri": 2, "workshop": 1.5, "mug": 3}
	for _, tc := range []struct {
		content, want string
		ok            bool
	}{
		{"Busy week. Work was a lot. I took my nephews to a pottery workshop. We each made a fox mug! Then pizza. Then bed.",
			"Work was a lot. I took my nephews to a pottery workshop. We each made a fox mug!", true},
		{"The workshop was fine. We talked. The pottery workshop was better. Then pizza.",
			"We talked. The pottery workshop was better. Then pizza.", true},
		{"A workshop. Nothing. Nothing else. A pottery class. Bed.",
			"Nothing else. A pottery class. Bed.", true},
		{"Mug one. Talk. Talk. Talk. Mug two.", "Mug one. Talk. … Talk. Mug two.", true},
		{"No match here. None at all.", "", false},
		{"A pottery workshop. Then pizza.", "", false},
	} {
		got, ok := window(tc.content, idf)
		if got != tc.want || ok != tc.ok {
			t.Errorf("window(%q) = %q, %v; want %q, %v", tc.content, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSupplementalWindowShare: the answer said in the sentence after the
// one that repeats the question's words enters with
// supplemental_window_share, and not without it (the excerpt keeps the
// matching sentence only).
func TestSupplementalWindowShare(t *testing.T) {
	at := time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC)
	in := dialog.Interaction{ID: "D3:1", Session: "s0310", Time: time.Date(2024, 3, 10, 18, 0, 0, 0, time.UTC), Turns: []dialog.Turn{
		{Role: dialog.RoleUser, Speaker: "Rosa", Content: "Busy week at the office. Last Saturday I took my nephews to a pottery workshop. We each shaped a lopsided mug with a fox face! Then we had pizza by the river and walked home along the old canal path."},
		{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: "Sounds like a lovely day."},
	}}
	q := "What did Rosa do at the pottery workshop with her nephews?"
	for _, tc := range []struct {
		share float64
		fox   bool
	}{{0, false}, {1, true}} {
		s := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalWindowShare = tc.share })
		mustCommit(t, s, append(twoFriends(), in)...)
		joined := ""
		for _, it := range suppItems(mustRecall(t, s, memory.Query{ID: "q", Text: q, Time: at, Budget: 60})) {
			joined += it.Text + "\n"
		}
		if !strings.Contains(joined, "pottery workshop") || strings.Contains(joined, "fox face") != tc.fox || strings.Contains(joined, "canal") {
			t.Errorf("supplemental_window_share %v at 60 tokens: got %q, want the sentence after the match: %v", tc.share, joined, tc.fox)
		}
	}
}

// TestSupplementalDayDates: supplemental turns are headed by their day,
// or by day and time with supplemental_day_dates false.
func TestSupplementalDayDates(t *testing.T) {
	at := time.Date(2024, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		day  bool
		want string
	}{{true, "[2024-03-02]\n"}, {false, "[2024-03-02 18:00]\n"}} {
		s := offlineSystem(t, func(c *config.ArborMem, _ *Deps) { c.SupplementalDayDates = tc.day })
		mustCommit(t, s, twoFriends()...)
		items := suppItems(mustRecall(t, s, memory.Query{ID: "q", Text: "Which instrument does Rosa play in the orchestra?", Time: at, Budget: 400}))
		if len(items) == 0 || !strings.HasPrefix(items[0].Text, tc.want) {
			t.Errorf("supplemental_day_dates %v: items %+v, want a header %q", tc.day, items, tc.want)
		}
	}
}
