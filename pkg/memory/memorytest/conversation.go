package memorytest

import (
	"fmt"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// step is one scripted event: an interaction to commit (with a phrase that
// occurs in no other interaction, used to detect leaks of uncommitted text)
// or a question to recall for.
type step struct {
	in     *dialog.Interaction
	phrase string
	q      *memory.Query
}

// line is a compact way to write one scripted interaction.
type line struct {
	user, assistant, phrase string
	minutes                 int // offset from the session start
	speaker                 string
}

type session struct {
	id    string
	start time.Time
	lines []line
}

// mainSessions is a small synthetic conversation: several topics (a trip, a
// training plan, a book club, a job, a pet), concrete facts (names, numbers,
// dates), updates of earlier facts (budget, employer, race goal) and a
// numbered list, spread over three sessions, so that any memory system has
// something to index, summarise, update and localize.
var mainSessions = []session{
	{id: "s1", start: time.Date(2023, 5, 2, 9, 0, 0, 0, time.UTC), lines: []line{
		{user: "I'm planning a trip to Lisbon from June 14 to June 21 with my sister Marta.", assistant: "Lovely! A week in Lisbon in June is a great choice. Do you want help with hotels or day trips?", phrase: "June 14 to June 21"},
		{user: "We booked the Casa Azul hotel in Alfama, room 312.", assistant: "Casa Azul in Alfama is close to the castle and the tram 28 line.", phrase: "room 312"},
		{user: "Our total trip budget is 2,000 euros.", assistant: "With 2,000 euros for a week you can comfortably cover food, transport and a day trip to Sintra.", phrase: "2,000 euros"},
		{user: "Separately, I'm training for the Porto half marathon on October 8.", assistant: "Great goal. How far is your current long run?", phrase: "Porto half marathon"},
		{user: "My long run is 14 km and I want to finish in under 2 hours.", assistant: "A sub-2-hour half is realistic from a 14 km long run with 16 weeks of training.", phrase: "14 km"},
		{user: "I work as a data analyst at Fernwood Labs.", assistant: "Noted. Do you run before or after work at Fernwood Labs?", phrase: "data analyst at Fernwood Labs"},
		{user: "Mostly before work, around 6:30 in the morning.", assistant: "Early runs are a good habit; keep an easy pace on those days.", phrase: "6:30 in the morning"},
	}},
	{id: "s2", start: time.Date(2023, 5, 19, 18, 30, 0, 0, time.UTC), lines: []line{
		{user: "Can you suggest three novels for my book club?", assistant: "Here are three picks:\n1. The Overstory by Richard Powers\n2. Piranesi by Susanna Clarke\n3. Klara and the Sun by Kazuo Ishiguro", phrase: "Susanna Clarke"},
		{user: "We chose Piranesi. The club meets on the first Thursday of each month at Ines's flat.", assistant: "Piranesi makes for a great discussion. Enjoy the meeting at Ines's flat!", phrase: "first Thursday of each month"},
		{user: "Update on the trip: we raised the budget to 2,500 euros because flights went up.", assistant: "Understood, your Lisbon budget is now 2,500 euros.", phrase: "2,500 euros"},
		{user: "My dog Biscuit has a vet appointment on May 25 at 4 pm.", assistant: "I'll remember Biscuit's vet visit on May 25 at 4 pm.", phrase: "vet appointment on May 25"},
		{user: "Biscuit is a four-year-old beagle who hates the rain.", assistant: "Beagles often do! Maybe a raincoat would help on walks.", phrase: "four-year-old beagle"},
		{user: "Which of those novels was written by Kazuo Ishiguro again?", assistant: "That was the third one, Klara and the Sun.", phrase: "That was the third one"},
	}},
	{id: "s3", start: time.Date(2023, 6, 2, 20, 15, 0, 0, time.UTC), lines: []line{
		{user: "Big news: I accepted a job as a senior analyst at Quillsoft and I start on June 26.", assistant: "Congratulations on the Quillsoft role! Starting June 26 gives you time after Lisbon.", phrase: "senior analyst at Quillsoft"},
		{user: "My last day at Fernwood Labs is June 9.", assistant: "So you'll wrap up at Fernwood Labs on June 9, then Lisbon, then Quillsoft.", phrase: "last day at Fernwood Labs"},
		{user: "For the race, I now aim for 1 hour 50 minutes since training is going well.", assistant: "A 1:50 target is ambitious but fair given your progress.", phrase: "1 hour 50 minutes"},
		{user: "My long run went up to 18 km last Sunday.", assistant: "18 km is a solid long run for a half marathon build.", phrase: "18 km"},
		{user: "In Lisbon we want to try the custard tarts at Manteigaria.", assistant: "Manteigaria's pasteis de nata are excellent; go early to avoid the queue.", phrase: "Manteigaria"},
		{user: "Marta is allergic to shellfish, so no seafood dinners.", assistant: "Got it, I'll avoid suggesting seafood restaurants for Marta.", phrase: "allergic to shellfish"},
	}},
}

// otherSessions is a second, unrelated conversation used to check that two
// instances never see each other's interactions.
var otherSessions = []session{
	{id: "g1", start: time.Date(2022, 3, 3, 12, 0, 0, 0, time.UTC), lines: []line{
		{user: "I'm growing tomatoes on my balcony in Utrecht.", assistant: "Balcony tomatoes do well in Utrecht summers with enough sun.", phrase: "balcony in Utrecht"},
		{user: "The variety is Sungold and I planted 6 seedlings.", assistant: "Sungold is sweet and productive; 6 seedlings is plenty.", phrase: "Sungold"},
		{user: "My car is a green 2014 Volvo V70 that needs new brakes.", assistant: "Brake pads for a V70 are a routine job at most garages.", phrase: "Volvo V70"},
		{user: "The garage quoted 340 dollars for the brakes.", assistant: "340 dollars for pads and labour sounds reasonable.", phrase: "340 dollars"},
		{user: "My neighbour Oskar lends me his ladder for pruning.", assistant: "Handy to have Oskar next door!", phrase: "neighbour Oskar"},
	}},
}

// questions are asked after the interaction with the given index (0-based,
// counting across sessions) has been committed.
var mainQuestions = []struct {
	after int
	text  string
}{
	{after: 2, text: "What hotel did I book in Lisbon?"},
	{after: 6, text: "Where do I work?"},
	{after: 9, text: "What is the current budget for the Lisbon trip?"},
	{after: 12, text: "What was the third book suggested for the book club?"},
	{after: 14, text: "Where do I work now and when do I start?"},
	{after: 18, text: "What was my original budget for Lisbon, and what is my race goal now?"},
}

func build(prefix string, sessions []session) ([]dialog.Interaction, []string) {
	var ins []dialog.Interaction
	var phrases []string
	n := 0
	for _, s := range sessions {
		for i, l := range s.lines {
			n++
			id := fmt.Sprintf("%s-%02d", prefix, n)
			ins = append(ins, dialog.Interaction{
				ID:      id,
				Session: s.id,
				Time:    s.start.Add(time.Duration(i*7+l.minutes) * time.Minute),
				Turns: []dialog.Turn{
					{ID: id + "-u", Role: dialog.RoleUser, Speaker: l.speaker, Content: l.user},
					{ID: id + "-a", Role: dialog.RoleAssistant, Content: l.assistant},
				},
			})
			phrases = append(phrases, l.phrase)
		}
	}
	return ins, phrases
}

// script interleaves the main conversation with its questions.
func script() []step {
	ins, phrases := build("m", mainSessions)
	var steps []step
	qi := 0
	for i := range ins {
		in := ins[i]
		steps = append(steps, step{in: &in, phrase: phrases[i]})
		for qi < len(mainQuestions) && mainQuestions[qi].after == i {
			next := in.Time.Add(3 * time.Minute)
			steps = append(steps, step{q: &memory.Query{ID: fmt.Sprintf("mq%d", qi+1), Text: mainQuestions[qi].text, Time: next}})
			qi++
		}
	}
	return steps
}

// Conversation returns the suite's main synthetic conversation (three
// sessions, 19 interactions), for tests elsewhere that want the same input.
func Conversation() []dialog.Interaction {
	ins, _ := build("m", mainSessions)
	return ins
}

// OtherConversation returns the unrelated conversation used for isolation checks.
func OtherConversation() []dialog.Interaction {
	ins, _ := build("g", otherSessions)
	return ins
}
