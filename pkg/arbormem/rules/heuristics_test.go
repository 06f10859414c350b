package rules

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

var ctx0 = context.Background()

func TestRuleNodeMetadata(t *testing.T) {
	in := inter("n", "One more thing on this. We've gone with $47,000 for the budget of Yara's wedding.",
		"Perfect — the budget for Yara's wedding is $47,000.\n\nBuild ten quiet minutes into the schedule. Share the plan early.")
	m, err := Ops{}.NodeMetadata(ctx0, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Summary, "$47,000") || strings.Contains(m.Summary, "One more thing") {
		t.Errorf("summary %q must keep the value and drop the discourse filler", m.Summary)
	}
	if n := len(strings.Fields(m.Summary)); n > 50 {
		t.Errorf("summary has %d words, over node_metadata's 50", n)
	}
	if !contains(m.Entities, "$47,000") {
		t.Errorf("entities %q lack the amount", m.Entities)
	}
	long := inter("l", strings.Repeat("I bought 3 apples at Fresh Market on May 2. ", 30), "ok")
	if m, _ := (Ops{}).NodeMetadata(ctx0, long); len(strings.Fields(m.Summary)) > 50 {
		t.Errorf("long input: %d summary words", len(strings.Fields(m.Summary)))
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ruleFactTexts runs the rule-based fact extractor and returns the facts'
// texts, also joined with " | " for substring checks.
func ruleFactTexts(t *testing.T, in dialog.Interaction) ([]string, string) {
	t.Helper()
	fs, err := Ops{}.Facts(ctx0, in)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, f := range fs {
		texts = append(texts, f.Fact)
	}
	return texts, strings.Join(texts, " | ")
}

func TestRuleFacts(t *testing.T) {
	in := inter("f", "I live in Porto now. What should I pack? Right, back to Kofi's party. Gloria Abernathy is at the Hawthorn table. I love green tea.", "ok")
	texts, all := ruleFactTexts(t, in)
	for _, want := range []string{"User live in Porto now.", "Gloria Abernathy is at the Hawthorn table.", "User love green tea."} {
		if !strings.Contains(all, want) {
			t.Errorf("facts %q lack %q", texts, want)
		}
	}
	for _, not := range []string{"pack", "back to Kofi"} {
		if strings.Contains(all, not) {
			t.Errorf("facts %q contain a question or a bare return (%q)", texts, not)
		}
	}
}

// In a conversation between two named people, facts are written in the
// third person as questions about the conversation name them: the
// speaker's name for "I", the other speaker's for "you", common verbs in
// agreement; what a speaker has, does or is becomes a fact though it holds
// no number or name; an image the speaker shared becomes "X shared …".
func TestRuleFactsNamedSpeakers(t *testing.T) {
	in := dialog.Interaction{ID: "c", Turns: []dialog.Turn{
		{Role: dialog.RoleUser, Speaker: "Rosa", Content: "I collect old vinyl records from flea markets. Thanks for asking! Look at this! and shared a photo of a shelf full of records"},
		{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: "I really love your collection, it looks great. Nice weather today."},
	}}
	texts, all := ruleFactTexts(t, in)
	for _, want := range []string{
		"Rosa collects old vinyl records from flea markets.",
		"Rosa shared a photo of a shelf full of records",
		"Tomas really loves Rosa's collection",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("facts %q lack %q", texts, want)
		}
	}
	for _, not := range []string{"Thanks", "weather", "and shared"} {
		if strings.Contains(all, not) {
			t.Errorf("facts %q hold %q", texts, not)
		}
	}
	// The user of an assistant dialogue keeps the value-or-preference rule.
	if fs, _ := (Ops{}).Facts(ctx0, inter("u", "I collect old vinyl records from flea markets.", "Nice.")); len(fs) != 0 {
		t.Errorf("unnamed user: want no fact without a value, got %+v", fs)
	}
}

func TestPersonalizeNamed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"I love hiking with my dog.", "Rosa loves hiking with Rosa's dog."},
		{"I went there and I'm tired.", "Rosa went there and Rosa is tired."},
		{"You've got this, your talent shows.", "Tomas has got this, Tomas's talent shows."},
		{"I don't eat meat.", "Rosa doesn't eat meat."},
		{"How have you been? Are you still painting?", "How has Tomas been? Is Tomas still painting?"},
		{"You are so kind and you were right.", "Tomas is so kind and Tomas was right."},
		{"You both looked great, thank you!", "You both looked great, thank Tomas!"},
		{"Did you all have fun?", "Did you all have fun?"},
	} {
		if got := personalizeNamed(c.in, "Rosa", "Tomas"); got != c.want {
			t.Errorf("personalizeNamed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := personalizeNamed("Do you like it?", "Rosa", ""); got != "Do you like it?" {
		t.Errorf("no known addressee: %q", got)
	}
}

func TestRuleArtifacts(t *testing.T) {
	in := inter("a", "Can you suggest three novels for my book club?",
		"Here are three picks:\n1. The Overstory by Richard Powers\n2. **Piranesi** — by Susanna Clarke\n3. Klara and the Sun by Kazuo Ishiguro\nMore at https://example.org/books")
	as, err := Ops{}.Artifacts(ctx0, in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: "The Overstory by Richard Powers", 2: "Piranesi", 3: "Klara and the Sun by Kazuo Ishiguro"}
	got := map[int]string{}
	link := false
	for _, a := range as {
		if a.Ordinal > 0 {
			got[a.Ordinal] = a.Item
		}
		if a.Type == "link" {
			link = true
		}
		if len([]rune(a.Item)) >= ops.MaxArtifactItem || len([]rune(a.Evidence)) >= ops.MaxArtifactEvid {
			t.Errorf("artifact over the length limits: %+v", a)
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("ordinal %d: %q, want %q", k, got[k], v)
		}
	}
	if !link || as[0].Type != "recommendation" {
		t.Errorf("artifacts %+v: want recommendations and the link", as)
	}
}

func TestRuleEventsAndStates(t *testing.T) {
	in := dialog.Interaction{ID: "e", Time: time.Date(2024, 5, 10, 12, 0, 0, 0, time.UTC), Turns: []dialog.Turn{
		{Role: dialog.RoleUser, Content: "I bought 2 cups of coffee yesterday. I didn't visit the museum. I moved to Porto last month. My favorite drink is oolong tea."},
		{Role: dialog.RoleAssistant, Content: "Noted."}}}
	evs, _ := Ops{}.Events(ctx0, in)
	if len(evs) < 2 {
		t.Fatalf("events %+v", evs)
	}
	buy := evs[0]
	if buy.CanonicalAction != "buy" || buy.Quantity == nil || *buy.Quantity != 2 || buy.Unit != "cups" || buy.NormalizedDate != "2024-05-09" || !buy.Countable {
		t.Errorf("buy event %+v", buy)
	}
	var museum *ops.Event
	for i := range evs {
		if evs[i].CanonicalAction == "visit" {
			museum = &evs[i]
		}
	}
	if museum == nil || !museum.Negated || museum.Countable {
		t.Errorf("negated visit %+v", museum)
	}
	sts, _ := Ops{}.States(ctx0, in)
	got := map[string]string{}
	for _, s := range sts {
		got[s.Key] = s.Value
	}
	if got["home_city"] != "Porto" || got["favorite_drink"] != "oolong tea" {
		t.Errorf("states %v", got)
	}
}

func TestRuleAudit(t *testing.T) {
	pairs := []ops.AuditPair{
		{ID: "0", Old: "User's Lisbon trip budget is 2,000 euros.", New: "User's Lisbon trip budget is 2,500 euros."},
		{ID: "1", Old: "User's dog is called Biscuit.", New: "User's car is a green Volvo."},
		{ID: "2", Old: "User works at Fernwood Labs.", New: "User now works at Quillsoft."},
		{ID: "3", Old: "User's Lisbon trip budget is 2,000 euros.", New: "User's Lisbon trip budget is 2,000 euros."},
	}
	got, _ := Ops{}.Audit(ctx0, pairs)
	want := []bool{true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d (%q → %q): conflict %v, want %v", i, pairs[i].Old, pairs[i].New, got[i], want[i])
		}
	}
}

func TestRuleTags(t *testing.T) {
	for q, want := range map[string]string{
		"How long is my commute to work?":       "2.4",
		"Which hotel did we book for the trip?": "2.5",
		"What is my dog called?":                "5.0",
	} {
		tags, _ := Ops{}.PredictTags(ctx0, q)
		if len(tags) == 0 || tags[0] != want || len(tags) > 3 {
			t.Errorf("tags(%q) = %v, want %s first (at most 3)", q, tags, want)
		}
	}
	for _, a := range ops.Ontology {
		if ops.NormalizeTag(a.Tag) != a.Tag || ops.NormalizeTag(a.Name) != a.Tag {
			t.Errorf("normalizeTag does not round-trip %s", a.Tag)
		}
	}
	if ops.NormalizeTag("2") != "" || ops.NormalizeTag("4") != "4.0" || ops.NormalizeTag("2.40") != "2.4" {
		t.Errorf("normalizeTag edge cases: %q %q %q", ops.NormalizeTag("2"), ops.NormalizeTag("4"), ops.NormalizeTag("2.40"))
	}
	if !strings.Contains(ops.OntologyText(), "2.4  Daily Routines: wake-up time") {
		t.Error("the ontology text must list tag, name and sub-attributes")
	}
}

func TestDeriveTopicNamedSpeakers(t *testing.T) {
	named := func(a, b string) dialog.Interaction {
		return dialog.Interaction{ID: "x", Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Speaker: "Rosalind", Content: a},
			{Role: dialog.RoleAssistant, Speaker: "Tomas", Content: b},
		}}
	}
	for _, c := range []struct {
		name string
		in   dialog.Interaction
		want string
	}{
		// A greeting and the speakers' names (and "Ros", a short form)
		// name nothing; the reply says what the branch is about.
		{"greeting", named("Hey Tomas! Long time no talk, how have you been?", "Hi Ros! I've been busy fixing my old sailboat."), "busy fixing old sailboat"},
		{"chat words", named("Wow, congrats Tomas! Sorry to hear about the flooded garage though.", "Thanks!"), "flooded garage"},
		// An assistant dialogue keeps every content word.
		{"unnamed", inter("a", "Long time no talk! I need a pasta recipe.", "Sure."), "long talk pasta recipe"},
	} {
		if got := DeriveTopic(c.in, ops.NodeMeta{}); got != c.want {
			t.Errorf("%s: deriveTopic = %q, want %q", c.name, got, c.want)
		}
	}
}
