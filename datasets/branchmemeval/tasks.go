package branchmemeval

// Short to-do items per domain, used for the checklist paragraphs that
// make some assistant replies look like real planning help. They never
// name a planned value.
var domainTasks = map[string][]string{
	"trip": {
		"check passport expiry", "download offline maps", "sort out travel insurance", "book airport transfers",
		"make copies of important documents", "check the weather forecast a week out", "decide on a daily spending limit",
		"reserve any must-see tickets", "tell the bank about the trip", "pack a small first-aid kit",
		"confirm the check-in times", "share the itinerary with someone at home",
	},
	"wedding": {
		"update the guest spreadsheet", "chase the missing RSVPs", "confirm the florist's delivery window", "book the hair and make-up trial",
		"draft the order of service", "collect song requests", "finalise the dietary list", "order the signage",
		"write the thank-you card list", "confirm the photographer's shot list", "plan the rehearsal", "buy the rings' insurance",
	},
	"renovation": {
		"confirm the materials delivery", "photograph the site before work starts", "clear the work area", "agree the snag-list process",
		"check the inspection bookings", "review the updated drawings", "order the long-lead fixtures", "set up a temporary kitchen",
		"walk through the site with the foreman", "file the receipts", "check the paint samples in daylight", "update the cost tracker",
	},
	"job": {
		"update the application tracker", "send two follow-up emails", "refresh the portfolio", "practise the two-minute introduction",
		"research the interviewers", "prepare three questions for each company", "tailor the CV for the next application",
		"ask a former colleague for a referral", "write down salary expectations", "tidy up the online profile",
		"book a mock interview", "review the notes from the last interview",
	},
	"paper": {
		"sort the reviewer comments into piles", "rerun the baseline with the new seed", "draft the response letter intro",
		"update the related-work section", "regenerate the figures", "check all the citations", "send the plan to co-authors",
		"write the new ablation paragraph", "proofread the abstract", "update the appendix tables", "run the spell checker",
		"schedule a read-through with a colleague",
	},
	"course": {
		"review this week's lecture notes", "start the problem set early", "make flashcards for the hard topics", "book a slot at office hours",
		"do one past paper under time pressure", "summarise the week on one page", "email the study group", "check next week's readings",
		"redo the questions I got wrong", "update the revision timetable", "print the formula sheet", "tidy the notes folder",
	},
	"move": {
		"book the mail forwarding", "pack the books and off-season clothes", "label the boxes by room", "arrange the utility switch-over",
		"measure the doorways at the new place", "sell or donate the furniture we won't take", "order packing supplies",
		"update the address with the bank", "plan the first night's essentials box", "photograph the meter readings",
		"book a cleaner for the old flat", "register with a local doctor",
	},
	"fitness": {
		"log this week's runs", "book a physio check", "replace the worn-out shoes", "plan the long run route",
		"schedule two strength sessions", "prepare race-day kit", "test the race breakfast", "stretch after every session",
		"check the weekly mileage against the plan", "sleep eight hours before hard days", "practise drinking while running",
		"plan the taper week",
	},
	"party": {
		"send the invitations", "confirm the final headcount", "order the cake", "plan the playlist",
		"buy the decorations", "arrange the seating", "confirm the caterer's menu", "prepare a short toast",
		"borrow extra chairs", "set up a photo corner", "plan the clean-up crew", "print the name cards",
	},
	"car": {
		"get three insurance quotes", "run a history check", "book the independent inspection", "compare financing offers",
		"list must-have features", "check the service records", "research the fair market price", "book a second test drive",
		"prepare the trade-in paperwork", "check the tyre condition", "read owner reviews", "set a walk-away price",
	},
}

var checklistIntro = []string{
	"If it helps, here's what I'd put on this week's list for {short}:",
	"A short checklist for the next few days:",
	"Concretely, the next steps I'd suggest:",
	"Here's a small to-do list to keep {short} moving:",
}

// User context sentences that make requests read like a real person's.
var userContext = []string{
	"I've been putting this off all week.",
	"We talked about it over dinner and didn't get anywhere.",
	"I want to get ahead of it before things get busy.",
	"Someone at work asked me about it and I realised I had no plan.",
	"I keep going back and forth on this.",
	"I read a couple of guides but they were all very generic.",
	"This is the part I know least about.",
	"I'd rather sort it now than panic later.",
	"I have about an hour tonight to work on it.",
	"It came up again this morning.",
	"The others involved are waiting on me for this.",
	"I think I'm overcomplicating it.",
}

// Transitions from acknowledging a value to general advice.
var bodyTransition = []string{
	"While we're on {short}, a few related pointers.",
	"Since we're on {short} anyway, some things worth keeping in mind.",
	"A few related thoughts on {short} while it's fresh.",
	"That's a good step. Looking at the rest of {short}:",
	"With that settled, here's what I'd think about next.",
}

// Tip frames combine a domain task, a time frame and a reason; there are
// thousands of combinations, which keeps long replies from repeating.
var tipFrames = []string{
	"I'd suggest you {task} {when}, {why}.",
	"It's worth taking a few minutes to {task} {when}, {why}.",
	"Try to {task} {when}; {whyAlone}.",
	"Make a note to {task} {when}, {why}.",
	"If you can, {task} {when} — {whyAlone}.",
	"One small thing: {task} {when}, {why}.",
	"Don't forget to {task} {when}, {why}.",
	"It would also help to {task} {when}.",
	"A good next step is to {task}, {why}.",
	"Consider asking someone to help you {task} {when}.",
}

var tipWhen = []string{
	"this week", "before the weekend", "in the next few days", "sooner rather than later", "while it's on your mind",
	"before anything else changes", "early next week", "tonight if you have ten minutes", "at some point this month", "before you make the next decision",
}

var tipWhy = []string{
	"so it doesn't turn into a last-minute scramble",
	"because it's the kind of thing that quietly slips",
	"since a few other decisions depend on it",
	"while there's still some slack in the schedule",
	"so that everyone is working from the same information",
	"because it's much cheaper to fix things early",
	"so you're not relying on memory later",
	"since it takes less time than worrying about it",
	"because it tends to take longer than expected",
	"so there are no surprises when it matters",
	"because small delays here ripple outwards",
	"so you can stop thinking about it",
	"since it gives you a clear picture of where things stand",
	"because the people involved will appreciate the heads-up",
}

var tipWhyAlone = []string{
	"it's the kind of thing that quietly slips",
	"a few other decisions depend on it",
	"it's much cheaper to fix things early",
	"it takes less time than worrying about it",
	"small delays here ripple outwards",
	"it gives you a clear picture of where things stand",
	"future you will be grateful",
	"it removes one open loop",
}

// Follow-up requests for a subtopic the user has already asked about.
var followUpAsk = []string{
	"Can you go a bit deeper on what we discussed earlier for {short}?",
	"What would you prioritise this week for {short}?",
	"What's the one thing I'm most likely to get wrong with {short}?",
	"Any more practical tips for {short}? The last ones helped.",
	"If you had to simplify {short} to the essentials, what would that look like?",
	"What should I be worrying about with {short} that I'm not?",
	"I'm second-guessing myself on {short}. Can you give me a sanity check?",
	"What does a good next week look like for {short}?",
	"Could you give me a quick refresher on the approach for {short}?",
	"Is there anything we haven't covered on {short} that usually bites people?",
	"How would someone experienced handle this stage of {short}?",
	"What's a realistic pace for {short} from here?",
}
