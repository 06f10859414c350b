package branchmemeval

// Domain-independent phrasing. {short} and {title} refer to the current
// branch; {v} and {label} to a slot.

var setGeneric = []string{
	"[Quick update on {short}:|For {short},|Okay, on {short} —|Logging this for {short}:] the {label} is {v}.",
	"We've [settled on|locked in|gone with|agreed on] {v} [as|for] the {label}.",
	"[So|Right, so|Good news —] the {label} is [now confirmed as|set as|locked in as] {v}.",
}

var setTail = []string{
	"", "", "",
	"That took [forever|a while|more emails than it should have] to pin down.",
	"Feels good to have that settled.",
	"One less thing to think about.",
	"Can you keep that on file?",
	"I'll forget it otherwise, so noting it here.",
}

// ackPlain confirms a value without naming the branch.
var ackPlain = []string{
	"[Got it|Noted|Perfect] — the {label} is {v}.",
	"[Noted|Logged]: the {label} is {v}.",
	"[Good|Great], {v} for the {label} then.",
}

var ackSet = []string{
	"[Got it|Noted|Perfect|Great] — the {label} for {short} is {v}.",
	"[Good|Excellent], so the {label} for {short} is {v}.",
	"[Noted|Logged] — the {label} is {v}.",
}

var updGeneric = []string{
	"[Actually|Change of plans|Heads up|Small change], the {label} [changed|has changed|moved] — [it's|it is] now {v}[, because {why}|].",
	"[Update|Correction] on {short}: [because {why},|] the {label} is now {v}.",
	"Scratch what I said before — [because {why},|] the {label} is now {v}.",
}

var updTail = []string{
	"", "Sorry for the back-and-forth.", "Just so you have the latest.", "Please use the new one from now on.",
}

var ackUpd = []string{
	"Thanks for the heads-up — from now on the {label} for {short} is {v}.",
	"[Updated|Got it]: the {label} is now {v}. I'll use that going forward.",
	"Noted the change: {v} is the current {label}.",
}

// B1: underspecified follow-ups that return to a branch. The return cue
// (returnOpen) names the branch's topic; the ask names only the generic noun
// of the slot.
var askResume = map[string][]string{
	"budget":  {"[Sorry,|Remind me,|Quick one:] what was the budget again?", "How much was the budget, again?", "What budget did we settle on?"},
	"date":    {"[Sorry,|Remind me,] what was the date again?", "Which date did we land on?", "What date did we say it was?"},
	"time":    {"What time was it again?", "[Sorry,|Remind me,] what time did we say?", "And what was the time, again?"},
	"contact": {"Who was the main contact again?", "[Sorry,|Remind me,] who's the main contact there?", "Who did we say the main contact is?"},
	"ref":     {"What was the reference number again?", "[Sorry,|Remind me,] what's the reference number?", "Can you give me the reference number again?"},
	"venue":   {"What was the venue again?", "[Sorry,|Remind me,] what's the venue?", "Which venue did we pick again?"},
	"":        {"What was the {label} again?", "[Sorry,|Remind me,] what's the {label}?"},
}

// returnOpen opens a B1 question: the user comes back to an earlier branch
// in the question itself.
var returnOpen = []string{
	"Back to {ref} —",
	"Going back to {ref} for a second:",
	"[Oh,|Hmm,] on {ref} again —",
	"Returning to {ref}:",
	"One more thing about {ref}:",
	"[Anyway|Okay], about {ref} —",
}

// B2: the current value of a slot that was updated.
var askLatest = []string{
	"[So|Okay, so] what's the {label} now, after the change?",
	"Where did we end up on the {label}? I want the current one.",
	"What's the current {label} for {short}?",
	"Remind me of the latest {label} — the one after the update.",
}

// B5: the instance anchor is named in the question.
var askTwin = []string{
	"What's the {label} for {anchor}'s {noun}?",
	"For {anchor}'s {noun}, what was the {label}?",
	"Remind me — what's the {label} on {anchor}'s {noun}?",
	"What did we say the {label} was for {anchor}?",
}

var answerSlot = []string{
	"The {label} for {short} is {v}.",
	"It's {v} — that's the {label} for {short}.",
}

var answerLatest = []string{
	"After the update, the {label} for {short} is {v}.",
	"The current {label} is {v}.",
}

var ordinals = []string{"", "first", "second", "third", "fourth", "fifth", "sixth"}
var ordinalNums = []string{"", "one", "two", "three", "four", "five", "six"}

// B3: an item of an assistant list by ordinal.
var askArtifact = []string{
	"Which one was {ord} on the list you gave me?",
	"What was number {num} on your list?",
	"What was number {n} on your list again?",
	"Remind me what the {ord} [one|item] on your list was?",
	"What was the {ord} suggestion you made in that list?",
	"Which was #{n} on the list you made?",
}

var answerArtifact = []string{
	"The {ord} item on that list was {v}.",
	"Number {n} was {v}.",
}

var listIntro = []string{
	"[Sure|Of course|Happy to] — here's a ranked list of {what}:",
	"Here are {what}, in the order I'd prioritise them:",
	"[Good idea|Absolutely]. My ranked list of {what}:",
}

var listAskTail = []string{"", "Keep it short.", "Just the names and one line each.", "I'll want to refer back to it later."}

// Resume openers: the user returns to a branch after other dialogue.
var resumeOpen = []string{
	"[Okay|Alright|Right], back to {ref}.",
	"Switching back to {ref} for a [sec|moment|bit].",
	"Let's pick up {ref} again.",
	"[Anyway|So], returning to {ref}.",
	"Can we go back to {ref}?",
	"Back on {ref} —",
	"I want to get back to {ref} [before I forget|while I have a minute].",
}

var resumeTail = []string{
	"", "", "I had a thought about it on the way home.", "I talked it over last night.", "Things moved a little since we last discussed it.",
}

var resumeReply = []string{
	"[Sure|Of course|Happy to], back to {short}.",
	"[Right|Okay], picking up {short} where we left off.",
	"[Good|Sure] — let's return to {short}.",
}

// Filler and small talk.
var replyOpen = []string{
	"[Good question|That's a really common worry|Fair question|Totally understandable].",
	"[Here's how I'd think about it|A few thoughts|Some practical pointers].",
	"[That's worth getting right|Let's make this easy on yourself].",
	"[Happy to help with that|Sure thing].",
	"",
}

var replyGeneric = []string{
	"The trick with {short} is to decide the big things once and stop revisiting them.",
	"Write decisions down the moment they're made; memory is a poor filing system when several projects run at once.",
	"It helps to keep a single running note for {short}, so there's one place to look.",
	"Most of the stress in something like {short} comes from open loops rather than from the work itself.",
	"A short weekly check-in with yourself on {short} catches small problems before they grow.",
	"If a decision is reversible, make it quickly; save your deliberation for the ones that aren't.",
	"It's normal for plans like this to feel messy in the middle; that usually means they're moving.",
	"When you're unsure, ask what the simplest version would look like and start there.",
	"Try not to optimise everything; good enough, done on time, usually wins.",
	"Put the next concrete step in your calendar so it doesn't float.",
	"Keep a list of questions as they come up and batch them for the right person.",
	"Other people involved will appreciate a short summary after each decision.",
	"Leave a little slack in the schedule and the money; something always surprises you.",
	"It's worth asking someone who has done this recently what they'd do differently.",
	"Small, regular progress beats occasional bursts of effort.",
	"Celebrate the milestones; they're easy to skip past.",
	"If two options seem equal, pick the one that's easier to undo.",
	"Confirm anything important in writing, even a two-line message.",
	"Deadlines set by you are softer than deadlines set by others, so treat them carefully.",
	"A checklist turns a vague worry into a series of small, boring tasks, which is exactly what you want.",
	"Don't be afraid to say no to extras that don't serve the main goal.",
	"It's easier to adjust a plan that exists than to perfect one that doesn't.",
	"If something keeps bothering you, it probably deserves ten minutes of attention today.",
	"Energy matters as much as time; schedule hard tasks when you're fresh.",
}

var replyClose = []string{
	"Want me to turn this into a short checklist?",
	"Let me know which of these fits your situation and we can go deeper.",
	"Happy to go into more detail on any of these.",
	"Does that match what you had in mind?",
	"What feels like the most pressing part right now?",
	"",
	"",
}

var smalltalkUser = []string{
	"Sorry, I'm a bit scattered today — too much coffee, not enough sleep.",
	"Honestly, it's been one of those weeks. Thanks for being patient with me.",
	"Random, but it's pouring outside and I have zero motivation.",
	"I just realised I haven't eaten lunch. Give me a second to think straight.",
	"My neighbour's dog has been barking for an hour, so forgive any typos.",
	"Quick tangent: do you have a good trick for staying focused in the afternoon?",
	"I keep starting sentences and forgetting the end of them. Long day.",
	"Is it normal to feel like every project is happening at once?",
	"I'm typing this on my phone on the bus, so bear with me.",
	"Sorry for the gap — got pulled into a meeting that could have been an email.",
	"I need a break from decisions for a minute. How do people do this without a spreadsheet?",
	"Okay, deep breath. I think I'm overthinking everything today.",
}

var smalltalkReply = []string{
	"No need to apologise — juggling several plans at once is genuinely tiring.",
	"Take your time; nothing here is going anywhere.",
	"That sounds like a long day. A short walk or a glass of water does more than you'd expect.",
	"Totally normal. When everything feels urgent, picking just one next step helps.",
	"For afternoon focus, a twenty-minute timer and a closed door work surprisingly well.",
	"You're doing fine — keeping notes like this is exactly how people stay on top of things.",
	"Happens to everyone. We can pick things up whenever you're ready.",
}

var smalltalkSub = []string{
	"A few small things tend to help on days like this: step away from the screen for five minutes, write down the three things that actually matter today, and let the rest wait.",
	"It can also help to close the tabs and notes for anything you're not working on right now, so your attention isn't split.",
	"And if a decision can wait until tomorrow morning, it usually should; most choices look clearer after sleep.",
	"A snack, some water and a short stretch really do change how the next hour goes.",
	"If it helps, tell me which plan is weighing on you most and we'll do one small thing on it.",
}

// Lead-ins that make a user turn read like part of an ongoing chat.
var userLead = []string{
	"", "", "", "", "Okay.", "So.", "Another thing:", "Also,", "Quick one.", "Hmm.", "One more thing on this.",
}

// Follow-up sentences a user adds after a question in a filler turn.
var userTail = []string{
	"", "", "", "I don't want to overthink it.", "I'd like a practical answer, not a perfect one.",
	"I've read a dozen articles and they all disagree.", "Keep in mind I don't have a lot of time.",
	"What would you do?", "I'm open to being told I'm wrong.",
}

// Canonical intro of a session's very first turn is not needed: every
// branch opens with its own intro turn.

// More general advice, so long replies do not keep circling the same lines.
var replyGeneric2 = []string{
	"[In practice|Realistically], the plan only has to be good enough to tell you what to do next.",
	"People tend to underestimate how long the small admin tasks take, so [give them their own slot|schedule them explicitly].",
	"[Honestly|Frankly], the hardest part is usually coordinating people, not making the decisions.",
	"A quick sanity check with someone you trust can save you from a [decision you'd regret|very expensive detour].",
	"It's fine to change your mind, as long as everyone involved hears about it at the same time.",
	"[Try to|If you can,] keep one evening a week completely free of planning; it helps you come back with a clearer head.",
	"Sometimes the best move is to wait a day and see whether the worry still feels important.",
	"Be wary of adding scope late; that's where timelines and costs usually slip.",
	"A simple rule of thumb: if you've discussed something three times, it's time to decide it.",
	"Good notes are boring notes — short, dated and specific.",
	"[Small|Minor] frictions are worth fixing early, because they compound over weeks.",
	"When several things compete for attention, rank them by what becomes harder to fix later.",
	"If you're waiting on someone else, pick a day by which you'll follow up.",
	"[It also helps|It's also worth] separating what you want from what you think you should want.",
	"Most problems look smaller once they're written as a list rather than carried around in your head.",
	"A shared calendar with the other people involved avoids a lot of double-booking.",
	"Think about the version of this you'd be happy with in a year, and aim for that.",
	"[Keep in mind|Remember] that nobody else will notice most of the details you're worrying about.",
	"If a supplier or helper is slow to respond now, expect the same later and plan around it.",
	"Give every open question an owner, even if the owner is you.",
	"It's usually cheaper to ask a clarifying question than to fix a misunderstanding.",
	"Leave yourself a buffer before any fixed commitment; things rarely go exactly to plan.",
	"[You don't have to|There's no need to] solve everything today; pick the one thing that unblocks the rest.",
	"Writing a two-line summary at the end of each session makes it much easier to pick things up again.",
	"Trust your instincts on people; if something feels off in early conversations, it usually gets worse.",
	"The options you keep coming back to are usually the ones you actually prefer.",
	"A little structure early saves a lot of scrambling at the end.",
	"Try to decide how you'll decide — by cost, by convenience, by gut — before comparing options.",
	"When in doubt, ask for things in writing and keep copies in one folder.",
	"Progress often feels slow in the middle even when it isn't; looking back at your notes helps.",
	"If the plan starts to feel heavy, that's a sign to simplify rather than push harder.",
	"Some decisions matter far less than they feel like they do in the moment.",
	"Expect at least one thing to go sideways, and you'll handle it much more calmly when it does.",
	"Keep the people affected in the loop early; surprises are what upset them, not changes.",
	"It's fine to lean on templates and checklists others have used; you don't need to invent everything.",
	"A ten-minute review at the end of each week is often enough to stay on top of things.",
}

// Sentences tying advice back to the current branch.
var replySpecific = []string{
	"For {short} specifically, I'd [start with|focus on] whatever has a hard deadline attached.",
	"Given where {short} is right now, [that's the piece I'd tackle next|I'd keep things simple for another week or two].",
	"With {short}, the biggest risk I see is letting small decisions pile up.",
	"I'd add a note about this to the running plan for {short}.",
	"That fits well with what we've already sorted out for {short}.",
	"[If it were my call|If I were in your position], I'd settle this part of {short} before moving on to anything else.",
	"This is also a good moment to check that everyone involved in {short} is on the same page.",
	"For {short}, a short list of open questions would make the next conversation much faster.",
	"None of this needs to be perfect for {short}; it just needs to be clear.",
	"Once this is done, {short} will feel a lot more under control.",
}
