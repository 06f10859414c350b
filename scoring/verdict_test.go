package scoring

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
)

// TestAdversarialJudgeReplies: per protocol, replies a broken, echoing,
// reasoning or contrary judge gives, with the verdict each must get.
func TestAdversarialJudgeReplies(t *testing.T) {
	t.Run("locomo", func(t *testing.T) {
		for _, tc := range []struct{ reply, want string }{
			{`{"label": "CORRECT"}`, "correct"},
			{"```json\n{\"label\": \"WRONG\"}\n```", "wrong"},
			{`{"label": "correct"}`, "correct"},
			{`{"reason": "same topic", "label": "WRONG"`, "wrong"}, // cut by the token limit
			{"WRONG. The generated answer is not CORRECT.", "wrong"},
			{"CORRECT", "correct"},
			{"**WRONG**", "wrong"},
			{"It is the same date. CORRECT", Unparsed},
			{"This answer is INCORRECT, so WRONG", Unparsed},
			{"INCORRECT", Unparsed},
			{`{"label": "maybe"} but overall it's CORRECT`, Unparsed},
			{`{"label": "CORRECT or WRONG"}`, Unparsed},
			{`{"answer": "echo: Reply with a JSON object whose \"label\" key holds exactly one of CORRECT or WRONG"}`, Unparsed},
			{"echo: ... label it CORRECT ...", Unparsed},
			{"<think>maybe {\"label\": \"CORRECT\"}? no.</think>\n{\"label\": \"WRONG\"}", "wrong"},
			{"<think>the answer looks CORRECT but", Unparsed},
			{`Sure: {"label": "CORRECT"}`, Unparsed},
			{"", Unparsed},
		} {
			if got := ParseLoCoMoLabel(tc.reply); got != tc.want {
				t.Errorf("ParseLoCoMoLabel(%q) = %q, want %q", tc.reply, got, tc.want)
			}
		}
	})
	t.Run("yes-no", func(t *testing.T) {
		for _, tc := range []struct{ reply, strict, official string }{
			{"Yes.", "yes", "yes"},
			{"yes, because it names the date", "yes", "yes"},
			{"  YES\n", "yes", "yes"},
			{"**Yes**", "yes", "yes"},
			{"No", "no", "no"},
			{"no.", "no", "no"},
			{"No, yes-man answers are wrong", "no", "yes"},
			{"The answer is yes", Unparsed, "yes"},
			{"echo: Is the assistant's response correct? Reply with yes or no only.", Unparsed, "yes"},
			{"Yesterday it was correct", Unparsed, "yes"},
			{"<think>is it yes? no.</think>No", "no", "yes"},
			{"", Unparsed, "no"},
			{"%%##garbage", Unparsed, "no"},
		} {
			if got := ParseYesNo(tc.reply, ParseStrict); got != tc.strict {
				t.Errorf("strict ParseYesNo(%q) = %q, want %q", tc.reply, got, tc.strict)
			}
			if got := ParseYesNo(tc.reply, ParseOfficial); got != tc.official {
				t.Errorf("official ParseYesNo(%q) = %q, want %q", tc.reply, got, tc.official)
			}
		}
	})
	t.Run("beam-rubric", func(t *testing.T) {
		for _, tc := range []struct {
			reply string
			want  float64
			ok    bool
		}{
			{`{"score": 1.0, "reason": "fine"}`, 1, true},
			{`{"score": 0.5, "reason": "partly"}`, 0.5, true},
			{`{"score": "0.5"}`, 0.5, true},
			{"```json\n{\"score\": 0.0}\n```", 0, true},
			{`{"Score": 1}`, 1, true},
			{`{"score": 0.5, "reason": "the response mentions the dat`, 0.5, true},
			{"<think>{\"score\": 1}</think>{\"score\": 0}", 0, true},
			{`{"score": 7}`, 0, false},
			{`{"score": -1}`, 0, false},
			{`{"score": "high"}`, 0, false},
			{`Score: 0.5 because it is partial`, 0, false},
			{`0.5`, 0, false},
			{`echo: Reply with only this JSON object: {"score": <1.0, 0.5 or 0.0>, "reason": "..."}`, 0, false},
			{`garbage`, 0, false},
			{`{"reason": "no score"}`, 0, false},
		} {
			got, ok := ParseRubricScore(tc.reply)
			if ok != tc.ok || got != tc.want {
				t.Errorf("ParseRubricScore(%q) = %v, %v; want %v, %v", tc.reply, got, ok, tc.want, tc.ok)
			}
		}
	})
}

// TestEchoingJudgeScoresNothing: a judge endpoint that echoes its prompt
// (as an unconfigured fake does) scores 0 under every protocol and every
// reply is counted unparsed.
func TestEchoingJudgeScoresNothing(t *testing.T) {
	ctx := context.Background()
	echo := &fakeJudge{reply: func(p string) string { return "echo: " + p }}
	opt := Options{Judge: config.Judge{Parse: ParseStrict}}
	cases := []struct {
		s    Scorer
		q    *datasets.Question
		want int // unparsed replies
	}{
		{NewLongMemEvalJudge(echo, nil, opt), &datasets.Question{ID: "q1", Category: "multi-session", Text: "Where?", Gold: "Paris", Time: qTime}, 1},
		{NewLoCoMoJudge(echo, nil, opt), &datasets.Question{ID: "c:1", Category: "2", Text: "When?", Gold: "May", Time: qTime}, 1},
		{NewBEAMRubric(echo, nil, opt), &datasets.Question{ID: "b1", Category: "information_extraction", Text: "What?", Rubric: []string{"says A", "says B"}, Time: qTime}, 2},
		{NewBEAMRubric(echo, nil, opt), &datasets.Question{ID: "b2", Category: "event_ordering", Text: "Order?", Rubric: []string{"first", "second"}, Time: qTime}, 2},
	}
	for _, tc := range cases {
		r, err := tc.s.Score(ctx, tc.q, "second\nfirst")
		if err != nil {
			t.Fatalf("%s: %v", tc.s.Name(), err)
		}
		if r.Score != 0 || r.Unparsed < tc.want || !strings.Contains(r.Outcome, Unparsed) {
			t.Errorf("%s on %s: score %v, outcome %q, unparsed %d; want 0, unparsed, at least %d", tc.s.Name(), tc.q.ID, r.Score, r.Outcome, r.Unparsed, tc.want)
		}
	}
}

// FuzzJudgeReplies: every judge's reply parser (LongMemEval and BEAM
// yes/no in both modes, LoCoMo's label, BEAM's rubric score) returns one of
// its defined outcomes for any reply, never panics, and a strict yes/no
// verdict never reads "yes" from a reply whose first word is not yes.
func FuzzJudgeReplies(f *testing.F) {
	for _, seed := range []string{"Yes.", "no", "**Yes**, because", "WRONG. The generated answer is not CORRECT.",
		`{"label": "CORRECT"}`, `<think>{"label": "WRONG"}</think>{"label": "CORRECT"}`, `{"score": 0.5}`, "score: 1", "", "\x00\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		for _, mode := range []string{ParseOfficial, "strict"} {
			switch v := ParseYesNo(reply, mode); v {
			case "yes", "no":
			case Unparsed:
				if mode == ParseOfficial {
					t.Errorf("official mode left %q unparsed", reply)
				}
			default:
				t.Errorf("ParseYesNo(%q, %s) = %q", reply, mode, v)
			}
		}
		if ParseYesNo(reply, "strict") == "yes" && firstWord(reply) != "yes" {
			t.Errorf("strict yes from %q (first word %q)", reply, firstWord(reply))
		}
		switch l := ParseLoCoMoLabel(reply); l {
		case "correct", "wrong", Unparsed:
		default:
			t.Errorf("ParseLoCoMoLabel(%q) = %q", reply, l)
		}
		if s, ok := ParseRubricScore(reply); ok && (s < 0 || s > 1 || s != s) {
			t.Errorf("ParseRubricScore(%q) = %v outside [0, 1]", reply, s)
		}
	})
}
