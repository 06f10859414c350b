package branchmemeval

// B4 cross-branch bridges (paper §5: "combines evidence across
// trajectories"). A source event in one branch carries a hidden linking
// value (a city, a date or a person); a target branch maps linking values to
// answers. The question names the event, never the link, so answering
// needs both branches. A decoy event in another branch carries a second
// linking value whose mapping in the target branch is the confounder: the
// answer reached through the wrong link.

// bridgeTarget is the mapping side of a bridge.
type bridgeTarget struct {
	link   string   // city, date, person
	domain string   // the target branch's domain
	pool   string   // answer pool
	label  string   // what the answer is ("hotel")
	fact   []string // {L} link, {v} answer
	ack    []string
	ask    []string // {e} event description
	answer []string
}

// sourceEvent is the event side: it carries the link value in a branch of
// domain dom.
type sourceEvent struct {
	link string
	dom  string
	ctx  []ctxSpec // extra variables for the event ({co} a company, ...)
	desc string    // how the question names the event
	fact []string  // {L} the link value, {e} the description
}

var bridgeTargets = []bridgeTarget{
	{
		link: "city", domain: "trip", pool: "hotel", label: "hotel",
		fact: []string{
			"Itinerary detail for {short}: in {L} I'm staying at {v}.",
			"For the {L} leg of {short}, the hotel is {v}.",
			"Booked the {L} stop: {v}, two nights.",
		},
		ack: []string{"Noted — in {L} the hotel is {v}.", "[Got it|Logged] — in {L} you're staying at {v}."},
		ask: []string{
			"Which hotel am I staying at for {e}?",
			"Where am I sleeping the night of {e}? Which hotel?",
			"For {e}, which hotel did I book?",
		},
		answer: []string{"{e} is in {L}, and in {L} you're staying at {v}."},
	},
	{
		link: "date", domain: "renovation", pool: "crew", label: "crew",
		fact: []string{
			"Schedule for {short}: on {L}, {v} [is coming|comes in] to do their part.",
			"The crew calendar says {v} is booked for {L}.",
			"{v} confirmed they'll be on site on {L}.",
		},
		ack: []string{"Noted — {v} on {L}.", "[Got it|Added to the schedule]: {L} is {v}'s day."},
		ask: []string{
			"Which crew is working at the house on the day of {e}?",
			"Who's coming to the house on the same day as {e}?",
			"On the day of {e}, which crew is on site?",
		},
		answer: []string{"{e} is on {L}, and {v} is booked for that day."},
	},
	{
		link: "date", domain: "move", pool: "movecrew", label: "crew",
		fact: []string{
			"For {short}, {v} is booked for {L}.",
			"On {L}, {v} [comes|is coming] for their part of {short}.",
		},
		ack: []string{"Noted — {v} is booked for {L}.", "[Got it|Logged] — {v} comes on {L}."},
		ask: []string{
			"Which company is coming to the flat on the day of {e}?",
			"On the day of {e}, who's booked for the move?",
		},
		answer: []string{"{e} is on {L}, which is when {v} is booked."},
	},
	{
		link: "person", domain: "wedding", pool: "table", label: "table",
		fact: []string{
			"Seating update for {short}: {L} is at the {v}.",
			"We put {L} at the {v}.",
			"{L} is seated at the {v}.",
		},
		ack: []string{"Noted — {L} sits at the {v}.", "[Got it|Logged] — {L} is at the {v}."},
		ask: []string{
			"Which table did we put {e} at?",
			"Where is {e} sitting — which table?",
		},
		answer: []string{"{e} is {L}, who is seated at the {v}."},
	},
	{
		link: "person", domain: "party", pool: "table", label: "table",
		fact: []string{
			"Seating for {short}: {L} is at the {v}.",
			"{L} goes at the {v}.",
		},
		ack: []string{"Noted — {L} sits at the {v}.", "[Got it|Logged] — {L} is at the {v}."},
		ask: []string{
			"Which table is {e} at for the party?",
			"Where did we seat {e}? Which table?",
		},
		answer: []string{"{e} is {L}, seated at the {v}."},
	},
}

var sourceEvents = []sourceEvent{
	// city links
	{link: "city", dom: "job", ctx: []ctxSpec{{"co", "company"}}, desc: "the {co} onsite interview", fact: []string{
		"The {co} onsite interview is in {L}.", "{co} wants me to come in person — the onsite interview is in {L}."}},
	{link: "city", dom: "paper", ctx: []ctxSpec{{"co", "conference"}}, desc: "the workshop talk", fact: []string{
		"They accepted the workshop talk; the workshop talk is in {L}."}},
	{link: "city", dom: "course", desc: "the weekend field session", fact: []string{
		"There's a weekend field session for {short}, and the weekend field session is in {L}."}},
	{link: "city", dom: "fitness", desc: "the warm-up 10K", fact: []string{
		"I also signed up for a warm-up 10K before the main race; the warm-up 10K is in {L}."}},
	{link: "city", dom: "wedding", desc: "the bachelor weekend", fact: []string{
		"The bachelor weekend is happening in {L}."}},
	{link: "city", dom: "party", desc: "the cake tasting", fact: []string{
		"The bakery we like is out of town: the cake tasting is in {L}."}},
	{link: "city", dom: "car", desc: "the dealer auction", fact: []string{
		"There's a dealer auction with a good {carkind}, and the dealer auction is in {L}."}},
	{link: "city", dom: "move", desc: "the apartment viewing", fact: []string{
		"The apartment viewing is in {L}, at the agency's other branch."}},
	{link: "city", dom: "renovation", desc: "the tile showroom visit", fact: []string{
		"The tile showroom visit is in {L}; they have the only full display."}},
	// date links
	{link: "date", dom: "job", ctx: []ctxSpec{{"co", "company"}}, desc: "the {co} panel interview", fact: []string{
		"The {co} panel interview is on {L}."}},
	{link: "date", dom: "course", desc: "the midterm", fact: []string{
		"The midterm for {short} is on {L}."}},
	{link: "date", dom: "fitness", desc: "the time trial", fact: []string{
		"Coach set a time trial for {L}."}},
	{link: "date", dom: "paper", desc: "the camera-ready deadline", fact: []string{
		"The camera-ready deadline is {L}."}},
	{link: "date", dom: "wedding", desc: "the dress fitting", fact: []string{
		"The dress fitting is on {L}."}},
	{link: "date", dom: "trip", desc: "the visa appointment", fact: []string{
		"The visa appointment for {short} is on {L}."}},
	{link: "date", dom: "party", desc: "the venue walkthrough", fact: []string{
		"The venue walkthrough is on {L}."}},
	{link: "date", dom: "car", desc: "the inspection appointment", fact: []string{
		"The independent inspection appointment is on {L}."}},
	// person links
	{link: "person", dom: "job", ctx: []ctxSpec{{"co", "company"}}, desc: "my future manager at {co}", fact: []string{
		"If I take the {co} job, my future manager at {co} would be {L}."}},
	{link: "person", dom: "paper", desc: "my co-author on the {topic} paper", fact: []string{
		"My co-author on the {topic} paper is {L}."}},
	{link: "person", dom: "course", desc: "my {subject} study partner", fact: []string{
		"My study partner for {subject} is {L}."}},
	{link: "person", dom: "fitness", desc: "my running buddy", fact: []string{
		"My running buddy for the long runs is {L}."}},
	{link: "person", dom: "renovation", desc: "the architect", fact: []string{
		"The architect on {short} is {L}."}},
	{link: "person", dom: "move", desc: "our new landlord", fact: []string{
		"Our new landlord in {dest} is {L}."}},
	{link: "person", dom: "trip", desc: "my travel companion", fact: []string{
		"My travel companion for {short} is {L}."}},
	{link: "person", dom: "car", desc: "the mechanic I trust", fact: []string{
		"The mechanic I trust, who'll inspect the car, is {L}."}},
}
