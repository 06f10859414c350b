package rules

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestContinuationCue(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Also, what about the hotel?", true},
		{"Thanks! Also, can you check the dates?", true},
		{"And what should I pack?", true},
		{"What about the second day?", true},
		{"Another thing: the flight leaves at 9.", true},
		{"One more thing on this. The budget is $400.", true},
		{"I also need a hotel.", false}, // "also" mid-sentence
		{"Andrew said hi.", false},
		{"Back to the renovation.", false},
		{"", false},
	} {
		if got := ContinuationCue(tc.text); got != tc.want {
			t.Errorf("continuationCue(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestReturnCue(t *testing.T) {
	for _, tc := range []struct {
		text, obj string
		ok        bool
	}{
		{"Okay, back to the renovation. What goes wrong?", "renovation", true},
		{"Back on Yara's wedding — what about photographers?", "Yara's wedding", true},
		{"Let's pick up the speech diarization paper again.", "speech diarization paper", true},
		{"Let's pick up Sam's job search for a project manager role again.", "Sam's job search", true},
		{"Switching back to the car search for a bit.", "car search", true},
		{"So, returning to the relocation.", "relocation", true},
		{"Can we go back to the Oslo wedding?", "Oslo wedding", true},
		{"The reviews came back on my graph clustering paper.", "", false},
		{"I'll want to refer back to it later.", "", false},
		{"Can you pick up the kids?", "", false},
		{"I went back home.", "", false},
	} {
		obj, ok := returnCue(tc.text)
		if ok != tc.ok || obj != tc.obj {
			t.Errorf("returnCue(%q) = %q, %v; want %q, %v", tc.text, obj, ok, tc.obj, tc.ok)
		}
	}
}

// The offline routing also reads a topic fronted at the start of an input
// and set off by a dash, a colon or "again" as a return to it; that form
// is no topic anchor (returnCue), so the model path does not see it.
func TestResumeCue(t *testing.T) {
	for _, tc := range []struct {
		text, obj string
		ok        bool
	}{
		{"Okay, about the garden shed — what did we say the cost was?", "garden shed", true},
		{"As for Nadia's recital: which day was it?", "Nadia's recital", true},
		{"Hmm, on the thesis again — when is it due?", "thesis", true},
		{"Okay, back to the renovation. What goes wrong?", "renovation", true},
		{"What did you think about the garden shed?", "", false},
		{"On Monday I went to the gym.", "", false},
		{"Thinking about the move — it makes me tired.", "", false},
	} {
		obj, ok := ResumeCue(tc.text)
		if ok != tc.ok || obj != tc.obj {
			t.Errorf("resumeCue(%q) = %q, %v; want %q, %v", tc.text, obj, ok, tc.obj, tc.ok)
		}
		if _, Anchor := returnCue(tc.text); Anchor && strings.HasPrefix(tc.text, "Okay, about") {
			t.Errorf("returnCue(%q): a fronted topic must not be an anchor", tc.text)
		}
	}
}

func TestNewTopicCue(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"New project: a trip to Austin in the summer.", true},
		{"Big news: I'm relocating to Boulder.", true},
		{"I'm planning a trip to Oslo for early autumn. Can you help me think it through?", true},
		{"My sister Iris is redoing the living room and asked me to help coordinate.", true},
		{"The basement is getting gutted and redone this year. I'd like a sane plan.", true},
		{"Separately, I'm training for the Porto half marathon.", true},
		{"The flight leaves at 9:40 am.", false},
		{"What should we ask potential photographers?", false},
		{"We've gone with $47,000 for the budget.", false},
	} {
		if got := NewTopicCue(tc.text); got != tc.want {
			t.Errorf("newTopicCue(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestDetectTemporal(t *testing.T) {
	now := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC) // a Wednesday
	for _, tc := range []struct {
		text     string
		ok       bool
		from, to string
		topic    string
	}{
		{"What did you suggest earlier today?", true, "2024-05-15 00:00", "2024-05-15 18:00", ""},
		{"Last week when we discussed the garden, what did you say?", true, "2024-05-02 00:00", "2024-05-14 00:00", "the garden"},
		{"What was the recipe you gave me yesterday?", true, "2024-05-14 00:00", "2024-05-15 00:00", ""},
		{"I talked it over last night.", false, "", "", ""}, // a report, not a reference to the chat
		{"What did we decide?", false, "", "", ""},
	} {
		c, ok := DetectTemporal(tc.text, now)
		if ok != tc.ok {
			t.Errorf("detectTemporal(%q) ok=%v, want %v", tc.text, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := c.From.Format("2006-01-02 15:04"); got != tc.from {
			t.Errorf("%q: from %s, want %s", tc.text, got, tc.from)
		}
		if got := c.To.Format("2006-01-02 15:04"); got != tc.to {
			t.Errorf("%q: to %s, want %s", tc.text, got, tc.to)
		}
		if c.Topic != tc.topic {
			t.Errorf("%q: topic %q, want %q", tc.text, c.Topic, tc.topic)
		}
	}
	if _, ok := DetectTemporal("What did you suggest yesterday?", time.Time{}); ok {
		t.Error("without a time a temporal cue cannot be resolved")
	}
}

func TestDetectAnchors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Going back to Sam's trip, what was the budget?", []string{"Sam's trip"}},
		{"If the question quotes 'book club picks', ignore other topics.", []string{"book club picks"}},
		{"How is Maya's surprise birthday coming along?", []string{"Maya's surprise birthday"}},
		{"What time is it?", nil},
		{"I spoke about the weather.", nil},
	} {
		var got []string
		for _, a := range DetectAnchors(tc.text) {
			got = append(got, a.Text)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("detectAnchors(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestClassifyQuery(t *testing.T) {
	for _, tc := range []struct {
		text  string
		check func(QueryType) bool
	}{
		{"How many times did I visit the museum?", func(q QueryType) bool { return q.Count && q.Computes() }},
		{"How much did I spend in total on coffee?", func(q QueryType) bool { return q.Sum }},
		{"What is my current job?", func(q QueryType) bool { return q.Current && !q.Previous }},
		{"What was my previous address?", func(q QueryType) bool { return q.Previous }},
		{"Did I book the hotel?", func(q QueryType) bool { return q.YesNo }},
		{"What was the third suggestion you made in that list?", func(q QueryType) bool { return q.Ordinal == 3 }},
		{"What was the last recommendation you gave?", func(q QueryType) bool { return q.Ordinal == -1 && !q.Latest }},
		{"What was number three on your list?", func(q QueryType) bool { return q.Ordinal == 3 }},
		{"Which one was number 4 in the list?", func(q QueryType) bool { return q.Ordinal == 4 }},
		{"How many days between the two concerts?", func(q QueryType) bool { return q.DateDiff && !q.Count }},
		{"Can you recommend a restaurant for our anniversary?", func(q QueryType) bool { return q.Preference }},
		{"What's the budget for Kofi's party?", func(q QueryType) bool { return len(q.Anchors) == 1 && q.Anchors[0] == "Kofi's party" }},
	} {
		if q := ClassifyQuery(tc.text); !tc.check(q) {
			t.Errorf("classifyQuery(%q) = %+v", tc.text, q)
		}
	}
}

func TestExtractEntities(t *testing.T) {
	got := Entities("We booked the Casa Azul hotel in Alfama for $2,400 on June 14, room 312.", 10)
	for _, want := range []string{"Casa Azul", "Alfama", "$2,400", "June 14"} {
		found := false
		for _, g := range got {
			if g == want {
				found = true
			}
		}
		if !found {
			t.Errorf("entities %q lack %q", got, want)
		}
	}
	for _, g := range got {
		if g == "We" {
			t.Errorf("sentence starter taken for a name: %q", got)
		}
	}
}

// TestShiftMarkers: explicit and soft changes of subject, and what is
// neither (continuation cues, returns, a marker inside a sentence).
func TestShiftMarkers(t *testing.T) {
	for _, tc := range []struct {
		text        string
		shift, soft bool
	}{
		{"completely different subject, but I've been baking sourdough", true, false},
		{"diff topic. my japanese is stuck", true, false},
		{"On a completely unrelated matter, my roses have aphids.", true, false},
		{"Switching gears: we're doing Iceland in September", true, false},
		{"Also, totally random, I cracked a molar", true, false},
		{"Random thing while I have you: my knee aches", true, false},
		{"On another note, I still haven't done my taxes", true, false},
		{"Separately, our choir concert is in December", true, false},
		{"oh, and my car broke down", false, true},
		{"Oh great, and now my bank texted me", false, true},
		{"ugh hold on, my dog threw up", false, true},
		{"I also need advice about my mother.", false, true},
		{"by the way when is my appointment?", false, true},
		{"Also, the coordinator is our main contact.", false, false},
		{"Another question: what about the venue?", false, false},
		{"One more thing on this. It starts at 5 pm.", false, false},
		{"So what's the deadline now?", false, false},
		{"and the date?", false, false},
		{"The subject of the email was different, but the topic was the same.", false, false},
		{"Back to the car hunt.", false, false},
	} {
		if got := ShiftMarker(tc.text); got != tc.shift {
			t.Errorf("ShiftMarker(%q) = %v, want %v", tc.text, got, tc.shift)
		}
		if got := SoftShift(tc.text); got != tc.soft {
			t.Errorf("SoftShift(%q) = %v, want %v", tc.text, got, tc.soft)
		}
	}
}

// TestContentTerms: generic and chat words, their inflections and small
// numbers say nothing about a thread; names, nouns and longer values do.
func TestContentTerms(t *testing.T) {
	got := ContentTerms("So what's the deadline for getting off MySQL now? maybe 16:40 or 1050 a day")
	for _, w := range []string{"get", "now", "dai", "16", "40", "mayb"} {
		if slices.Contains(got, w) {
			t.Errorf("ContentTerms keeps %q: %q", w, got)
		}
	}
	for _, w := range []string{"deadlin", "mysql", "1050"} {
		if !slices.Contains(got, w) {
			t.Errorf("ContentTerms drops %q: %q", w, got)
		}
	}
}

// TestFrontedLabel: a topic fronted with "again" or "update", or an update
// on one, and closed by a stop, colon or dash, is a label; the same words
// inside a sentence, or without the closing mark, are not.
func TestFrontedLabel(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"ok, visa again. should the statements be stamped?", "visa"},
		{"biscuit update: vet says it's gastritis", "biscuit"},
		{"Quick update on the kitchen tiles: they arrived", "kitchen tiles"},
		{"Garden again — the slugs are back", "Garden"},
		{"I tried it again.", ""},
		{"the long drive from the coast again.", ""},
		{"we should meet again soon", ""},
		{"the update arrived: all good", ""},
		{"Can you explain that again?", ""},
	} {
		got, ok := FrontedLabel(tc.text)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("FrontedLabel(%q) = %q, %v; want %q", tc.text, got, ok, tc.want)
		}
	}
}

// TestAddOn: a bare additive opening, and what is not one.
func TestAddOn(t *testing.T) {
	for text, want := range map[string]bool{
		"also jonas asked me to be best man":   true,
		"Also, the coordinator is our contact": true,
		"Plus the venue wants a deposit":       true,
		"ok so additionally we need chairs":    true,
		"I also need advice":                   false,
		"and the date?":                        false,
		"Alsora is the town":                   false,
	} {
		if got := AddOn(text); got != want {
			t.Errorf("AddOn(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestContentTermsIrregularAndPronouns: an irregular past reads as its base
// ("met" as "meet"), and "one" and apostrophe-less question words are not
// content words.
func TestContentTermsIrregularAndPronouns(t *testing.T) {
	if a, b := ContentTerms("they met at a climbing gym"), ContentTerms("where did they meet"); !slices.Contains(a, "meet") || !slices.Contains(b, "meet") {
		t.Errorf("met %q and meet %q do not share a term", a, b)
	}
	if got := ContentTerms("whats the rent on the balcony one"); slices.Contains(got, "on") || slices.Contains(got, "what") || !slices.Contains(got, "rent") {
		t.Errorf("ContentTerms = %q: want rent and balcony only", got)
	}
}
