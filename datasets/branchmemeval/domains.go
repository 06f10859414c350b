package branchmemeval

// The agendas a branch can be about. Templates use "[a|b]" for random
// alternatives and "{name}" for the branch's variables: {short} ("Sam's
// trip" or "the trip"), {title}, {poss} ("Sam's" or "my"), the domain's
// context variables ({dest}, {room}, ...), and in slot templates {v} (the
// value) and {label}. Filler never names a slot value, so a value appears
// only where the plan puts it.

// domain is one kind of agenda.
type domain struct {
	key  string
	noun string // "trip": "Sam's trip", "the trip"
	ctx  []ctxSpec
	// title renders the full name; {poss} is "my" or "Sam's".
	title string
	// alias are other ways to refer to the branch when resuming it.
	alias      []string
	introSelf  []string
	introOther []string // {rel} {anchor}
	introReply []string
	slots      []slotSpec
	list       listSpec
	subs       []subtopic
}

type ctxSpec struct{ name, pool string }

// slotSpec is a typed slot. key is shared across domains where the generic
// question works for all of them ("what was the budget again?").
type slotSpec struct {
	key   string
	label string
	pool  string
	set   []string // user sentences with {v}
	upd   bool     // the plan may update it (B2)
	why   []string // reasons for an update
}

// listSpec is the assistant artifact a branch can produce (B3).
type listSpec struct {
	kind  string // option, step, title
	what  string // noun phrase for the list
	ask   []string
	items []string // name — description; the name is the answer
	outro []string
}

type subtopic struct {
	ask []string
	say []string
}

// Generic slot keys and the noun an underspecified question uses (B1).
var genericNoun = map[string]string{
	"budget":  "budget",
	"date":    "date",
	"time":    "time",
	"contact": "main contact",
	"ref":     "reference number",
	"venue":   "venue",
}

var domains = []*domain{
	{
		key: "trip", noun: "trip",
		ctx:   []ctxSpec{{"dest", "city"}, {"when", "month"}},
		title: "{poss} trip to {dest}",
		alias: []string{"the {dest} trip", "the trip to {dest}", "{short}", "the {dest} plans"},
		introSelf: []string{
			"I'm [finally|] planning a trip to {dest} for {when} and I'd like to get organised [before it gets chaotic|early this time]. Can you help me think it through?",
			"New project: a trip to {dest}, probably in {when}. I've never been, so I'm starting from zero. Where do I even begin?",
		},
		introOther: []string{
			"I'm helping {rel} {anchor} plan a trip to {dest} in {when}. {anchor} is hopeless with logistics, so I'm keeping the notes. Can you help?",
			"{rel} {anchor} asked me to sort out the logistics for a trip to {dest} in {when}. I want to keep {anchor}'s trip details straight, so let's start a plan.",
		},
		introReply: []string{
			"[Happy to help|Sounds like a great trip|Love this] — {dest} in {when} is a good call.",
			"Great, let's set up {title} properly from the start.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:1500:6000:50", set: []string{
				"We looked at the numbers and the budget for {short} is {v}, all in.",
				"Budget-wise we're capping {short} at {v}.",
			}, upd: true, why: []string{"the flights came in cheaper than expected", "we decided to add two extra nights"}},
			{key: "date", label: "departure date", pool: "date", set: []string{
				"The flight out is on {v}.",
				"We're leaving on {v}, so that's the departure date.",
			}, upd: true, why: []string{"the airline moved the flight", "work got in the way of the original plan"}},
			{key: "time", label: "departure time", pool: "time", set: []string{
				"The flight leaves at {v}, which is [earlier than I'd like|actually pretty civilised].",
			}, upd: true, why: []string{"the airline shuffled its schedule", "we switched to a later connection"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"Our main contact on the ground in {dest} is {v}, a friend of a friend who knows the city well.",
				"A local guide, {v}, agreed to be the main contact in {dest}.",
			}},
			{key: "ref", label: "booking reference number", pool: "ref", set: []string{
				"The booking reference number for the flights is {v}.",
			}},
			{key: "hotel", label: "hotel", pool: "hotel", set: []string{
				"We booked {v} as the hotel — it's close to the old town.",
				"For the stay we went with {v} as the hotel.",
			}, upd: true, why: []string{"the first place cancelled on us", "we found something with a better location"}},
		},
		list: listSpec{kind: "option", what: "places to eat in {dest}", ask: []string{
			"Could you suggest [five|a handful of] places to eat in {dest}? Ranked, ideally.",
			"Give me a short ranked list of restaurants worth trying in {dest}.",
		}, items: []string{
			"Tasca Lumiar — tiny family-run room, grilled fish and a handwritten menu",
			"Casa Verdelho — long tables, slow-cooked stews, book ahead on weekends",
			"Bistro Alameda — a safe choice for a late dinner after a long day",
			"Osteria Fenice — handmade pasta and a very good house red",
			"Café Marisol — breakfast and pastries, opens early",
			"The Copper Kettle — casual, loud, good for a group",
			"Mercado Sol — a food hall where everyone can pick something different",
			"Nonna Bruna — small, cash only, the kind of place locals queue for",
			"Saltgrass Kitchen — seafood with a view, pricier but memorable",
			"Little Olive — vegetarian-friendly small plates",
			"Fumo Grill — charcoal-grilled everything, very relaxed",
			"Ristorante Ponte — a classic white-tablecloth dinner for one special night",
		}, outro: []string{"If you only have time for two, start with the first and the third."}},
		subs: []subtopic{
			{ask: []string{"What should I pack for {dest} in {when}?", "I'm already worrying about packing for {short}. Any tips?"}, say: []string{
				"Pack for layers: mornings and evenings in {when} can feel very different from midday.",
				"[Comfortable|Broken-in] walking shoes matter more than anything else in the bag.",
				"A small daypack is worth it for water, a light jacket and whatever you pick up along the way.",
				"Roll clothes instead of folding them and you'll fit [noticeably|a surprising amount] more.",
				"Leave a little space on the way out — people almost always come back with more than they left with.",
				"Keep documents and chargers in one pouch so nothing important is scattered across bags.",
				"If you're carrying on only, check the liquid rules for the return leg too.",
			}},
			{ask: []string{"How should we get around {dest} once we're there?", "Is it worth renting a car for {short}, or should we rely on transit?"}, say: []string{
				"In most city centres you'll walk more than you expect, and that's usually the best way to see things.",
				"Public transport day passes tend to pay off after three or four rides.",
				"A car is only worth it if you plan day trips outside the city; parking in the centre is often painful.",
				"Download an offline map before you go so you're not relying on roaming data.",
				"Taxis from the airport can be pricey; check whether there's a train or shuttle into town.",
				"Keep one evening free of plans — getting lost on foot is half the fun of a new place.",
			}},
			{ask: []string{"What's a realistic daily rhythm for {short}? I tend to over-schedule.", "How many things should we try to do per day in {dest}?"}, say: []string{
				"Two anchor activities a day is plenty: one in the morning, one in the late afternoon.",
				"Leave the middle of the day loose for long lunches and unexpected detours.",
				"Group sights by neighbourhood so you're not crossing the city three times a day.",
				"Jet lag or not, the first day should be light — a walk, a good dinner, an early night.",
				"Museums are best early or late; midday is when the tour groups arrive.",
				"If something is a must-see, book it ahead so it doesn't eat a whole afternoon in a queue.",
			}},
			{ask: []string{"Any advice on money and cards for {dest}?", "Should I bring cash for {short} or is card fine everywhere?"}, say: []string{
				"Carry a small amount of local cash for markets, tips and the occasional card-shy café.",
				"Tell your bank you're travelling so a foreign charge doesn't freeze the card at a bad moment.",
				"Use a card without foreign transaction fees if you have one; it adds up over a week.",
				"Keep a backup card separate from your main wallet.",
				"When a card terminal offers to charge you in your home currency, decline — the rate is usually worse.",
				"A quick daily check of spending keeps the trip from quietly drifting over plan.",
			}},
			{ask: []string{"What should we do if it rains the whole time in {dest}?", "Give me some rainy-day ideas for {short}."}, say: []string{
				"Covered markets and food halls are perfect on a wet day and you eat well too.",
				"Rain is the excuse to finally do the long museum visit you'd otherwise skip.",
				"A cooking class or a tasting is a good indoor plan that still feels local.",
				"Bookshops and cafés make a slow rainy afternoon feel intentional rather than wasted.",
				"Keep one flexible day in the plan so you can swap outdoor and indoor days around the forecast.",
				"A compact umbrella and a waterproof layer take most of the sting out of a grey day.",
			}},
		},
	},
	{
		key: "wedding", noun: "wedding",
		ctx:   []ctxSpec{{"town", "city"}, {"when", "month"}},
		title: "{poss} wedding in {town}",
		alias: []string{"the wedding", "{short}", "the wedding planning", "the {town} wedding"},
		introSelf: []string{
			"We got engaged last month and we're planning the wedding for {when}, probably in {town}. I need help staying organised — there are so many moving parts.",
			"Okay, wedding planning has officially started: {when}, in {town}. Can you help me keep track of decisions as we make them?",
		},
		introOther: []string{
			"{rel} {anchor} is getting married in {town} in {when}, and I've been drafted as the unofficial planner. Can you help me keep {anchor}'s wedding organised?",
			"I'm co-planning {anchor}'s wedding — {rel} {anchor}, that is — in {town} around {when}. I want a clean record of what's decided.",
		},
		introReply: []string{
			"Congratulations — and yes, let's keep {title} organised from day one.",
			"[How exciting|Lovely news]! A wedding in {town} in {when} gives you a nice amount of lead time.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:12000:48000:500", set: []string{
				"We sat down with the spreadsheet and the total budget for {short} is {v}.",
				"The families agreed: the budget for {short} is {v}, and we're trying hard to stick to it.",
			}, upd: true, why: []string{"the parents chipped in more than expected", "we cut the guest list"}},
			{key: "date", label: "wedding date", pool: "date", set: []string{
				"We picked the date: the wedding is on {v}.",
				"It's official, {v} is the wedding date.",
			}, upd: true, why: []string{"the hall had a conflict", "a key family member couldn't travel that weekend"}},
			{key: "time", label: "ceremony time", pool: "time", set: []string{
				"The ceremony starts at {v}.",
			}, upd: true, why: []string{"the officiant had another booking", "we wanted better light for photos"}},
			{key: "venue", label: "venue", pool: "venue", set: []string{
				"We signed with {v} — that's the venue.",
				"The venue is going to be {v}; we saw it on Saturday and loved it.",
			}, upd: true, why: []string{"the first place double-booked us", "the original place couldn't fit everyone"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The coordinator, {v}, is our main contact for anything on the day.",
			}},
			{key: "caterer", label: "caterer", pool: "caterer", set: []string{
				"We're going with {v} as the caterer after the tasting.",
			}, upd: true, why: []string{"the first caterer's quote doubled"}},
			{key: "ref", label: "contract reference number", pool: "ref", set: []string{
				"The contract reference number from the venue is {v}, in case we need it.",
			}},
		},
		list: listSpec{kind: "title", what: "first-dance songs", ask: []string{
			"Can you give me a ranked list of first-dance song ideas? Slow, not too cheesy.",
			"We need first-dance options. Give me [five|a few], in order of how much you'd recommend them.",
		}, items: []string{
			"Harbor Lights Waltz — slow and warm, easy to sway to",
			"Paper Moon Promise — sweet without being syrupy",
			"Evening in Amber — builds gently, great for a short choreographed bit",
			"Slow River Song — acoustic, very intimate",
			"Golden Hour Letters — upbeat ending if you want to invite everyone on the floor",
			"Two Chairs by the Window — quiet, lyrical, a bit of a tearjerker",
			"Northbound Heart — a modern ballad with a steady beat",
			"Lantern Street — jazzy and a little playful",
			"Still the One I Choose — classic, guests will sing along",
			"Silver Thread — piano only, very elegant",
			"Morning After Rain — soft guitar, short, good if you're shy",
			"Little Wild Home — folk feel, fun to dance to",
		}, outro: []string{"Play each one in the room you'll dance in, if you can — acoustics change everything."}},
		subs: []subtopic{
			{ask: []string{"How do we build a guest list without starting a family feud?", "The guest list for {short} is getting out of hand. Help?"}, say: []string{
				"Start with tiers: people you can't imagine the day without, people you'd love to have, and people you'd invite if space allows.",
				"Agree on rules before names — for example, no plus-ones for guests neither of you has met.",
				"Each side of the family gets a number, and they decide how to fill it.",
				"Keep the master list in one shared place so there's a single version of the truth.",
				"Expect roughly one in five invited guests to decline, but don't count on it when booking space.",
				"Be kind but firm; 'we're keeping it small' is a complete sentence.",
			}},
			{ask: []string{"What should we ask potential photographers for {short}?", "How do we choose a photographer? Every portfolio looks great."}, say: []string{
				"Ask to see one complete wedding gallery, not just the highlight reel.",
				"Check how many hours are included and what overtime costs.",
				"Make sure you actually like talking to them — they'll be next to you all day.",
				"Ask when you'll get the photos back and in what format.",
				"A short engagement shoot is a cheap way to test the chemistry before the big day.",
				"Write a shot list of must-have family groupings so nobody is forgotten.",
			}},
			{ask: []string{"How far ahead should invitations for {short} go out?", "What's a sensible timeline for announcements and invitations?"}, say: []string{
				"Early announcement cards typically go out six to eight months ahead, more if guests need to travel.",
				"Formal invitations are usually sent six to eight weeks before the day.",
				"Set the reply deadline about a month out so you can give final numbers to suppliers.",
				"A simple wedding website saves a lot of repeated questions about parking and dress code.",
				"Order a few extra invitations; someone always gets forgotten or needs a replacement.",
				"Keep a tracker of who replied and any dietary needs as responses come in.",
			}},
			{ask: []string{"Any tips for the seating plan at {short}?", "Seating charts stress me out. How do people do this?"}, say: []string{
				"Start with the tables that are easy: immediate family, the wedding party, close friends.",
				"Seat people near at least one person they know, then mix a little.",
				"Keep known tensions at opposite ends of the room and move on.",
				"Put older guests away from the speakers and close to the exits.",
				"Sticky notes on a big sheet of paper beat any app for the first draft.",
				"Finalise seating only after the RSVP deadline; it'll change until then anyway.",
			}},
			{ask: []string{"How do we keep the day itself from becoming a blur?", "What can we do to actually enjoy {short} on the day?"}, say: []string{
				"Give one trusted person the job of handling every small problem so you never hear about them.",
				"Build ten quiet minutes together into the schedule right after the ceremony.",
				"Eat something before the reception starts; many couples forget to.",
				"Share the timeline with suppliers a week ahead and confirm when each of them arrives.",
				"Decide in advance what 'good enough' means so small hiccups don't rattle you.",
				"Put a bag together with essentials: safety pins, plasters, a phone charger, snacks.",
			}},
		},
	},
	{
		key: "renovation", noun: "renovation",
		ctx:   []ctxSpec{{"room", "room"}},
		title: "{poss} {room} renovation",
		alias: []string{"the {room} renovation", "the {room} project", "{short}", "the renovation"},
		introSelf: []string{
			"We're finally renovating the {room}. It's been on the list for years. Can you help me plan it so it doesn't spiral?",
			"The {room} is getting gutted and redone this year. I'd like a sane plan and a place to keep decisions.",
		},
		introOther: []string{
			"{rel} {anchor} is redoing the {room} and asked me to help coordinate. I'm keeping notes on {anchor}'s renovation here.",
			"I'm helping {rel} {anchor} with a {room} renovation. {anchor} keeps forgetting what was agreed with whom, so let's track it.",
		},
		introReply: []string{
			"Good timing to plan it properly — a {room} renovation goes much smoother when decisions are written down.",
			"Let's do it. {title} can stay on track if we set things up carefully.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:6000:45000:250", set: []string{
				"After the quotes came in, we set the budget for {short} at {v}.",
				"The budget for {short} is {v}, including a small contingency.",
			}, upd: true, why: []string{"we found water damage behind the wall", "we dropped the heated floor idea"}},
			{key: "date", label: "start date", pool: "date", set: []string{
				"Work starts on {v}.",
				"The crew can begin on {v}, so that's our start date.",
			}, upd: true, why: []string{"the permit took longer", "the crew's previous job overran"}},
			{key: "time", label: "crew arrival time", pool: "time", set: []string{
				"The crew says they'll arrive at {v} each morning.",
			}, upd: true, why: []string{"the neighbours complained about early noise"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"Our main contact at the contracting firm is {v}.",
				"The site foreman, {v}, will be the main contact for day-to-day questions.",
			}, upd: true, why: []string{"the original foreman moved to another site"}},
			{key: "ref", label: "permit reference number", pool: "ref", set: []string{
				"The city issued the permit; the permit reference number is {v}.",
			}},
		},
		list: listSpec{kind: "step", what: "prep steps before the crew arrives", ask: []string{
			"What should we do before the crew shows up? Give me the steps in order.",
			"Can you list, in order, the prep steps for the week before work starts?",
		}, items: []string{
			"Empty the room completely — including the stuff you think they'll work around",
			"Photograph the existing walls and floor — useful for any disputes later",
			"Set up a temporary kitchen corner — a kettle, a microwave and a plug strip go a long way",
			"Shut off and label the circuits — so nobody guesses later",
			"Protect the hallway floors — cardboard and tape along the route the crew will use",
			"Clear a parking spot for the skip — check if the street needs a permit",
			"Move fragile items to another room — vibrations travel further than you think",
			"Seal the doorways with plastic — dust gets everywhere otherwise",
			"Agree on a bathroom for the crew — saves awkward conversations",
			"Print the final drawings — tape them to the wall where the work happens",
			"Order long-lead items early — tiles and fixtures can take weeks",
			"Tell the neighbours the schedule — goodwill matters when the drilling starts",
		}, outro: []string{"Most delays come from the first two steps being skipped, so don't."}},
		subs: []subtopic{
			{ask: []string{"How do I compare quotes for {short} when they're structured so differently?", "Three contractors, three totally different quotes. How do I compare them?"}, say: []string{
				"Put every quote into the same line items — demolition, materials, labour, finishes — before comparing totals.",
				"Ask each contractor what's explicitly excluded; that's where surprises hide.",
				"A very low quote often means something is missing, not that they're more efficient.",
				"Check whether materials are priced as allowances or as specific products.",
				"Ask for a payment schedule tied to milestones rather than calendar days.",
				"References from recent jobs of a similar size tell you more than reviews online.",
			}},
			{ask: []string{"How do we live through {short} without losing our minds?", "Any tips for surviving the renovation while we're living in the house?"}, say: []string{
				"Pick one room as a no-dust sanctuary and guard it fiercely.",
				"Plan meals you can make with a kettle and a microwave for the worst weeks.",
				"Agree on quiet hours with the crew if someone works from home.",
				"A weekly walkthrough with the foreman catches problems while they're still cheap.",
				"Keep a running list of small snags rather than raising each one as it appears.",
				"Expect the messiest stretch to be the first third of the job.",
			}},
			{ask: []string{"How do I pick finishes for the {room} without second-guessing forever?", "I keep changing my mind on tiles and paint for {short}. How do I decide?"}, say: []string{
				"Get physical samples and look at them in the actual room at different times of day.",
				"Choose one hero element and keep everything else quieter around it.",
				"Durability beats trendiness for anything you touch every day.",
				"Set a deadline for each decision and tell the contractor, so you're forced to commit.",
				"Order ten percent extra tile for breakage and future repairs.",
				"When two options feel equal, choose the one that's easier to clean.",
			}},
			{ask: []string{"What usually goes wrong in a {room} renovation?", "What should I watch out for with {short}?"}, say: []string{
				"Old walls hide surprises: wiring, plumbing or damp that wasn't on anyone's plan.",
				"Lead times for fixtures slip, so order early and confirm delivery windows.",
				"Changes mid-project are the most common cause of cost overruns.",
				"Get anything agreed on site confirmed in writing, even a short message.",
				"Check that inspections are booked before walls are closed up.",
				"Hold back a small final payment until the snag list is done.",
			}},
			{ask: []string{"How much contingency should we keep for {short}?", "Is a ten percent contingency enough for {short}?"}, say: []string{
				"Ten percent is the minimum for a straightforward job; older houses deserve fifteen to twenty.",
				"Treat the contingency as money you expect to spend, not a bonus at the end.",
				"Track spend weekly against the plan so overruns are visible early.",
				"If you don't use the contingency, that's when you upgrade the small things.",
				"Keep receipts in one folder; it helps with warranties and any disputes.",
				"Decide in advance which upgrades you'd drop first if money gets tight.",
			}},
		},
	},
	{
		key: "job", noun: "job search",
		ctx:   []ctxSpec{{"role", "role"}},
		title: "{poss} job search for a {role} role",
		alias: []string{"the job search", "{short}", "the {role} applications", "the job hunt"},
		introSelf: []string{
			"I've decided to start looking for a new job — {role} roles, ideally somewhere I can grow. Can you help me run this like a project?",
			"Job search time. I'm aiming for {role} positions and I want to be more organised than last time.",
		},
		introOther: []string{
			"{rel} {anchor} is job hunting for {role} roles and I'm helping with applications. Let's keep {anchor}'s job search organised here.",
			"I'm coaching {rel} {anchor} through a job search — {role} positions. I'll keep track of {anchor}'s details with you.",
		},
		introReply: []string{
			"Treating it like a project is exactly right — a {role} search goes better with a pipeline and a record.",
			"Happy to help. Let's set up {title} so nothing slips between applications.",
		},
		slots: []slotSpec{
			{key: "date", label: "interview date", pool: "date", set: []string{
				"The first-round interview is on {v}.",
				"They scheduled the interview for {v}.",
			}, upd: true, why: []string{"the hiring manager was travelling", "they added another panelist"}},
			{key: "time", label: "interview time", pool: "time", set: []string{
				"The interview is at {v}, video call.",
			}, upd: true, why: []string{"the panel is across time zones"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The recruiter, {v}, is the main contact for the process.",
				"Our main contact on the hiring side is {v}.",
			}, upd: true, why: []string{"the first recruiter went on leave"}},
			{key: "ref", label: "application reference number", pool: "ref", set: []string{
				"The application reference number is {v}; they asked me to quote it in emails.",
			}},
			{key: "offer", label: "salary offer", pool: "amount:62000:145000:500", set: []string{
				"The verbal salary offer came in at {v} base.",
			}, upd: true, why: []string{"we negotiated after the competing offer"}},
		},
		list: listSpec{kind: "option", what: "companies to target", ask: []string{
			"Can you give me a ranked shortlist of the kinds of companies I should target first?",
			"Give me [five|a few] target employers, in priority order, with one line each on why.",
		}, items: []string{
			"Fernway Health — steady growth and a reputation for mentoring",
			"Quarterlight Studio — small team, lots of ownership early on",
			"Ridgeback Analytics — strong data culture, hybrid schedule",
			"Solstice Mobility — well funded, moving fast",
			"Hollybrook Foods — boring product, excellent people, great benefits",
			"Tandem Civic — public-sector projects with real impact",
			"Greenlake Insurance — stable and surprisingly modern internally",
			"Moonrise Games — creative and chaotic in equal measure",
			"Cartwright Learning — education technology with a clear mission",
			"Beacon Freightworks — logistics with interesting scale problems",
			"Westerly Energy — renewables, long-term hiring",
			"Pebble Finance — a small fintech with a thoughtful manager bench",
		}, outro: []string{"Apply to the top two first, then use what you learn in those interviews for the rest."}},
		subs: []subtopic{
			{ask: []string{"How should I tailor my CV for {role} roles?", "My CV feels generic. How do I sharpen it for {short}?"}, say: []string{
				"Lead each bullet with an outcome, then the action that produced it.",
				"Mirror the language of the job description where it's honestly true of your work.",
				"One page of strong bullets beats two pages of duties.",
				"Cut anything older than about ten years unless it's directly relevant.",
				"Numbers make claims concrete: team size, time saved, money, users.",
				"Keep a master CV and trim a copy for each application.",
			}},
			{ask: []string{"How do I prepare for behavioural interview questions?", "What's the best way to practise for the interviews in {short}?"}, say: []string{
				"Prepare six or seven stories that each show a different strength, and practise telling them in two minutes.",
				"Use a simple structure: the situation, what you did, and what changed because of it.",
				"Practise out loud; stories that sound fine in your head often ramble when spoken.",
				"Have a clear, honest answer ready for why you're leaving your current role.",
				"Prepare thoughtful questions for them — it's an interview in both directions.",
				"After each interview, jot down what you were asked while it's fresh.",
			}},
			{ask: []string{"How do I keep track of all the applications in {short}?", "I'm losing track of where I applied. What system should I use?"}, say: []string{
				"A simple spreadsheet works: company, role, when you applied, stage, next step and who you spoke to.",
				"Review it twice a week and follow up on anything silent for more than ten days.",
				"Batch applications into focused sessions instead of sending one a day.",
				"Save each job description, because postings disappear once they close.",
				"Track where each lead came from so you know which channels work.",
				"Set a weekly target you control, like applications sent, not offers received.",
			}},
			{ask: []string{"How do I negotiate when an offer comes in?", "Any advice for salary negotiation in {short}?"}, say: []string{
				"Thank them warmly and ask for the full offer in writing before discussing numbers.",
				"Anchor on the value you bring and on market data, not on what you need.",
				"Consider the whole package: bonus, equity, leave, flexibility and learning allowance.",
				"It's normal to ask for a day or two to think; good employers expect it.",
				"Negotiate once, clearly, and then decide.",
				"Be gracious either way; you may work with these people for years.",
			}},
			{ask: []string{"How do I network for {role} jobs without feeling fake?", "Networking feels awkward. How do I do it for {short}?"}, say: []string{
				"Ask people about their work rather than asking for a job.",
				"A short, specific message gets more replies than a long life story.",
				"Former colleagues are the warmest network most people overlook.",
				"Follow up with a thank-you and one thing you'll try from their advice.",
				"Meetups and small talks give you something concrete to talk about.",
				"Aim for two conversations a week; consistency beats bursts.",
			}},
		},
	},
	{
		key: "paper", noun: "paper revision",
		ctx:   []ctxSpec{{"topic", "topic"}},
		title: "{poss} paper revision on {topic}",
		alias: []string{"the paper", "the {topic} paper", "{short}", "the revision"},
		introSelf: []string{
			"The reviews came back on my {topic} paper and it's a major revision. I need a plan to get through it without panicking.",
			"I'm revising my paper on {topic} for resubmission. Can you help me organise the revision?",
		},
		introOther: []string{
			"{rel} {anchor} asked me to help manage the revision of their paper on {topic}. Let's keep {anchor}'s revision on track here.",
			"I'm helping {rel} {anchor} with a paper revision — the {topic} one. I'll track {anchor}'s deadlines and decisions with you.",
		},
		introReply: []string{
			"A major revision is good news in disguise — they want to see it again. Let's plan {title}.",
			"Let's make the {topic} revision manageable by breaking it into pieces.",
		},
		slots: []slotSpec{
			{key: "date", label: "submission date", pool: "date", set: []string{
				"The resubmission is due on {v}.",
				"The editor gave us until {v}, so that's the submission date.",
			}, upd: true, why: []string{"the editor granted an extension", "the journal moved the special issue"}},
			{key: "venue", label: "venue", pool: "conference", set: []string{
				"We're targeting the {v} — that's the venue now.",
				"The venue for the resubmission is the {v}.",
			}, upd: true, why: []string{"the scope fits another venue better", "the original venue changed its deadline"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The handling editor, {v}, is our main contact.",
				"My co-author {v} is the main contact for the experiments.",
			}},
			{key: "ref", label: "submission reference number", pool: "ref", set: []string{
				"The submission reference number is {v}.",
			}},
			{key: "time", label: "meeting time", pool: "time", set: []string{
				"We meet weekly about the revision at {v} on Thursdays.",
			}, upd: true, why: []string{"a co-author's teaching schedule changed"}},
		},
		list: listSpec{kind: "title", what: "alternative titles for the paper", ask: []string{
			"The reviewers hated our title. Can you propose a ranked list of alternatives?",
			"Give me [five|several] candidate titles for the revised paper, best first.",
		}, items: []string{
			"Less Is Enough — concise, a bit playful",
			"Learning Where to Look — clear and memorable",
			"Beyond the Baseline — signals a strong empirical story",
			"A Closer Reading of the Evidence — good for an analysis-heavy paper",
			"Small Signals, Large Effects — highlights the main finding",
			"Rethinking the Standard Setup — provocative but fair",
			"What the Benchmarks Miss — frames the gap you address",
			"Structure Before Scale — emphasises your method's idea",
			"Following the Thread — friendly, slightly narrative",
			"Measured, Not Assumed — emphasises rigour",
			"One Step Back, Two Forward — works if the revision reframes the contribution",
			"Quiet Gains — understated, for a careful results section",
		}, outro: []string{"Whatever you pick, make sure the first sentence of the abstract delivers on it."}},
		subs: []subtopic{
			{ask: []string{"How do I structure the response letter for {short}?", "What's the best format for replying to reviewers?"}, say: []string{
				"Quote each reviewer comment, then give your response and point to the exact change in the manuscript.",
				"Open with a short thank-you and a summary of the main changes.",
				"Group overlapping comments from different reviewers so you answer them once, consistently.",
				"Stay polite even when a reviewer misread something; explain, don't argue.",
				"Mark changes in the manuscript with colour or a diff so they're easy to verify.",
				"If you decline a suggestion, give a concrete reason and, ideally, some evidence.",
			}},
			{ask: []string{"How do I prioritise the reviewer comments on {short}?", "There are forty comments. Where do I start?"}, say: []string{
				"Sort comments into three piles: quick fixes, substantive changes, and disagreements.",
				"Do the quick fixes first; they build momentum and shrink the list.",
				"Start the new experiments early because they take the longest.",
				"Flag comments that conflict between reviewers and decide a position on each.",
				"Share the plan with co-authors so everyone knows who owns which comment.",
				"Set aside a full day at the end just for consistency checks.",
			}},
			{ask: []string{"How do I deal with a reviewer who clearly misunderstood the {topic} method?", "One reviewer seems to have misread the paper. How do I handle it?"}, say: []string{
				"Treat misunderstanding as a signal that the text could be clearer — rewrite the passage.",
				"Acknowledge the concern, clarify, and show the revised wording.",
				"A small illustrative example can resolve confusion faster than more equations.",
				"Avoid any tone that suggests the reviewer was careless; editors notice.",
				"Ask a colleague outside the project to read the revised section cold.",
				"Keep the reply short; long defences read as defensive.",
			}},
			{ask: []string{"What extra experiments should I prioritise for {short}?", "The reviewers want more experiments. How do I choose which?"}, say: []string{
				"Prioritise experiments that more than one reviewer asked for.",
				"Choose ablations that isolate your main claim rather than broad new comparisons.",
				"Report variance or confidence intervals; reviewers increasingly ask for them.",
				"If an experiment is infeasible, explain why and offer a cheaper proxy.",
				"Keep a log of every run and config so the numbers are reproducible later.",
				"Put secondary results in an appendix to keep the main paper focused.",
			}},
			{ask: []string{"How do I keep co-authors aligned during {short}?", "Co-authors keep editing the same sections. Help?"}, say: []string{
				"Assign each section an owner and let others comment rather than edit directly.",
				"A short weekly check-in beats long email threads.",
				"Freeze the structure early so people aren't rewriting a moving target.",
				"Keep a shared to-do list that maps comments to owners and status.",
				"Set an internal deadline a week before the real one.",
				"Decide who has the final say on wording disputes before they come up.",
			}},
		},
	},
	{
		key: "course", noun: "course",
		ctx:   []ctxSpec{{"subject", "subject"}},
		title: "{poss} {subject} course",
		alias: []string{"the {subject} course", "{short}", "the course", "{subject}"},
		introSelf: []string{
			"I enrolled in an evening course in {subject}. I work full time, so I need a plan to actually keep up.",
			"I'm taking a {subject} course this term and want to do well this time. Help me organise it?",
		},
		introOther: []string{
			"{rel} {anchor} is taking a {subject} course and I promised to help keep them on track. Let's keep {anchor}'s course details here.",
			"I'm helping {rel} {anchor} get through a {subject} course. I'll note {anchor}'s schedule and deadlines with you.",
		},
		introReply: []string{
			"Good plan — a {subject} course alongside work needs structure, not just motivation.",
			"Let's make {title} manageable week by week.",
		},
		slots: []slotSpec{
			{key: "date", label: "exam date", pool: "date", set: []string{
				"The final exam is on {v}.",
				"They posted the exam date: {v}.",
			}, upd: true, why: []string{"the exam hall was double-booked", "the department reshuffled the timetable"}},
			{key: "time", label: "class time", pool: "time", set: []string{
				"Class meets at {v} on Tuesdays and Thursdays.",
			}, upd: true, why: []string{"the instructor moved the section"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The teaching assistant, {v}, is the main contact for questions.",
			}, upd: true, why: []string{"the TA changed mid-term"}},
			{key: "instructor", label: "instructor", pool: "advisor", set: []string{
				"The instructor is {v}; apparently strict but fair.",
			}},
			{key: "ref", label: "course reference number", pool: "ref", set: []string{
				"The course reference number is {v} — I need it for the employer reimbursement form.",
			}},
			{key: "budget", label: "budget", pool: "amount:300:2400:25", set: []string{
				"The budget for {short}, books and fees together, is {v}.",
			}},
		},
		list: listSpec{kind: "step", what: "a weekly study routine", ask: []string{
			"Can you lay out a weekly study routine for {short}, step by step?",
			"Give me an ordered list of steps for each week of {subject} so I don't fall behind.",
		}, items: []string{
			"Skim the readings before class — just headings and figures",
			"Rewrite the lecture notes within a day — in your own words",
			"Do the problem set in two sittings — never all at once",
			"Make three flashcards per lecture — only the things you got wrong",
			"Explain one concept out loud — to anyone willing to listen",
			"Review last week's flashcards on Sunday — ten minutes is enough",
			"Bring one question to office hours — even a small one",
			"Do a timed practice question — to build exam stamina",
			"Summarise the week on one page — it becomes your revision sheet",
			"Check the syllabus for next week — so nothing surprises you",
			"Compare answers with a study partner — catch blind spots",
			"Take one full evening off — rest is part of the plan",
		}, outro: []string{"The first two steps do most of the work; the rest make it stick."}},
		subs: []subtopic{
			{ask: []string{"How do I study {subject} efficiently with a full-time job?", "I only have evenings for {short}. How do I use them well?"}, say: []string{
				"Short daily sessions beat one long weekend cram, especially for {subject}.",
				"Protect two fixed evenings a week like meetings you can't move.",
				"Use commutes or lunch breaks for flashcards and light review.",
				"Start problem sets early, even if you only read them, so your brain works on them in the background.",
				"Tell your manager about exam weeks in advance.",
				"Sleep is part of studying; memory consolidates overnight.",
			}},
			{ask: []string{"What's the best way to prepare for the {subject} exam?", "How should I revise for the final in {short}?"}, say: []string{
				"Start revision three weeks out and work backwards from the exam.",
				"Past papers are the best practice; do them under timed conditions.",
				"Make a one-page summary per topic and keep shrinking it.",
				"Focus revision on what you get wrong, not what you already know.",
				"Teach a topic to someone else to find the gaps.",
				"Plan a light final day; cramming the night before rarely helps.",
			}},
			{ask: []string{"I'm falling behind in {short}. How do I catch up?", "I missed two weeks of {subject}. What now?"}, say: []string{
				"Don't try to redo everything — identify the core concepts the next topics depend on.",
				"Email the instructor or TA early; they'd much rather help now than at exam time.",
				"Borrow notes from a classmate and compare them with the slides.",
				"Catch up in small, scheduled blocks rather than one heroic weekend.",
				"Keep attending new lectures even while catching up.",
				"Accept that some optional readings will stay unread.",
			}},
			{ask: []string{"How do I take better notes in {subject} lectures?", "My notes for {short} are a mess. Any system?"}, say: []string{
				"Write less during the lecture and more in a short review afterwards.",
				"Leave a margin for questions and fill it in when you review.",
				"Capture worked examples fully; they're gold at exam time.",
				"Use the same structure every time so notes are easy to scan.",
				"Label every page and number the lectures.",
				"Highlight only at the review stage, never during the lecture.",
			}},
			{ask: []string{"Is a study group worth it for {short}?", "Should I join a study group for {subject}?"}, say: []string{
				"A small group of three or four works best; larger ones drift into chatting.",
				"Come prepared with attempted problems so the time is spent on the hard parts.",
				"Rotate who explains; explaining is where the learning happens.",
				"Set an agenda and a firm end point.",
				"If the group becomes social, keep it, but find separate quiet study time.",
				"Online groups work fine if cameras stay on.",
			}},
		},
	},
	{
		key: "move", noun: "move",
		ctx:   []ctxSpec{{"dest", "city"}},
		title: "{poss} move to {dest}",
		alias: []string{"the move", "the move to {dest}", "{short}", "the relocation"},
		introSelf: []string{
			"We're moving to {dest} later this year and I'm already overwhelmed. Can you help me plan the move?",
			"Big news: I'm relocating to {dest}. I want a clear plan for the move so nothing falls through the cracks.",
		},
		introOther: []string{
			"{rel} {anchor} is moving to {dest} and I'm helping with the logistics. Let's keep {anchor}'s move organised here.",
			"I said I'd help {rel} {anchor} plan a move to {dest}. I'll track {anchor}'s details with you.",
		},
		introReply: []string{
			"A move to {dest} is a big one — a written plan will save you a lot of stress.",
			"Let's break {title} into phases so it feels manageable.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:1500:9000:50", set: []string{
				"The budget for {short}, movers and everything, is {v}.",
			}, upd: true, why: []string{"we're shipping the piano after all", "we sold most of the furniture"}},
			{key: "date", label: "moving date", pool: "date", set: []string{
				"Moving day is {v}.",
				"We locked in {v} as the moving date.",
			}, upd: true, why: []string{"the new lease starts later", "the movers had a conflict"}},
			{key: "time", label: "truck arrival time", pool: "time", set: []string{
				"The truck arrives at {v} on moving day.",
			}, upd: true, why: []string{"the movers split the day with another job"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The landlord's agent, {v}, is our main contact for the new place.",
			}},
			{key: "ref", label: "lease reference number", pool: "ref", set: []string{
				"The lease reference number is {v}.",
			}},
			{key: "mover", label: "moving company", pool: "mover", set: []string{
				"We hired {v} as the moving company.",
			}, upd: true, why: []string{"the first company never sent the contract"}},
		},
		list: listSpec{kind: "option", what: "neighbourhoods to look at in {dest}", ask: []string{
			"Which neighbourhoods in {dest} should we look at? Rank them for us.",
			"Give me a ranked list of areas in {dest} worth considering for {short}.",
		}, items: []string{
			"Elm Heights — leafy, quiet, good schools",
			"Harbor Point — lively, close to the water, pricier",
			"Mill District — converted warehouses, great cafés",
			"Old Quarry — more space for the money, a bit further out",
			"Canal Row — walkable, excellent transit",
			"Larch Park — family-friendly with a big park",
			"Fairview Hill — views, but steep streets",
			"Riverside Flats — young crowd, good nightlife",
			"Station Square — unbeatable commute",
			"Greenwood Terrace — quiet, older houses with gardens",
			"Orchard Lane — small-town feel inside the city",
			"Kingfisher Bay — newer builds, lots of amenities",
		}, outro: []string{"Visit your top two at different times of day before deciding."}},
		subs: []subtopic{
			{ask: []string{"How do I start packing for {short} without chaos?", "When should we start packing for the move?"}, say: []string{
				"Start with the things you use least: books, off-season clothes, decorations.",
				"Label every box with the room and a short list of contents.",
				"Pack one essentials box per person for the first two days.",
				"Photograph the back of electronics before unplugging them.",
				"Declutter before packing; moving things you don't want costs money.",
				"Keep documents, keys and medication with you, not on the truck.",
			}},
			{ask: []string{"What admin do I need to sort for the move to {dest}?", "What paperwork am I forgetting for {short}?"}, say: []string{
				"Set up mail forwarding a couple of weeks before moving day.",
				"Update your address with your bank, employer and doctor.",
				"Arrange when the utilities start at the new place and stop at the old one.",
				"Read the meters on both ends and take photos.",
				"Check whether you need to register your new address locally.",
				"Keep a folder with the lease, receipts and inventory lists.",
			}},
			{ask: []string{"How do I choose between moving companies?", "Is a full-service mover worth it for {short}?"}, say: []string{
				"Get at least three quotes based on an in-person or video survey.",
				"Ask exactly what insurance covers and how claims work.",
				"Full packing service saves days but costs a lot; partial packing is a middle ground.",
				"Read recent reviews for how they handle damage, not just friendliness.",
				"Confirm the booking in writing a week ahead.",
				"Have cash or a card ready for any extras on the day.",
			}},
			{ask: []string{"How do we settle in quickly in {dest}?", "Any tips for the first weeks after {short}?"}, say: []string{
				"Unpack the kitchen and beds first; everything else can wait.",
				"Walk the neighbourhood in the first week to find the essentials.",
				"Say hello to neighbours early; it's easier than later.",
				"Join one local group or class to meet people outside work.",
				"Give yourself a month before judging the new place.",
				"Keep one familiar routine going to anchor the transition.",
			}},
			{ask: []string{"How do I move with kids and a cat without drama?", "What about the pets during {short}?"}, say: []string{
				"Keep pets in a quiet closed room on moving day, with a sign on the door.",
				"Visit the new place with kids beforehand so it feels familiar.",
				"Let children pack one box of their own treasures.",
				"Set up the pet's familiar things first in the new home.",
				"Keep meal and sleep routines as normal as you can.",
				"Update microchip details with the new address.",
			}},
		},
	},
	{
		key: "fitness", noun: "training plan",
		ctx:   []ctxSpec{{"race", "race"}},
		title: "{poss} training plan for the {race}",
		alias: []string{"the training plan", "the {race} training", "{short}", "training"},
		introSelf: []string{
			"I signed up for the {race}. I haven't trained seriously in years, so I need a plan that won't wreck me.",
			"I want to get fit for the {race}. Can you help me build and track a training plan?",
		},
		introOther: []string{
			"{rel} {anchor} signed up for the {race} and asked me to help with a training plan. Let's track {anchor}'s training here.",
			"I'm helping {rel} {anchor} train for the {race}. I'll keep {anchor}'s plan details with you.",
		},
		introReply: []string{
			"The {race} is a great goal — a steady plan will get you there without injury.",
			"Let's build {title} with gradual progress and rest built in.",
		},
		slots: []slotSpec{
			{key: "date", label: "race date", pool: "date", set: []string{
				"The race is on {v}.",
			}, upd: true, why: []string{"the organisers moved it because of a city event"}},
			{key: "time", label: "training time", pool: "time", set: []string{
				"I'll train at {v} on weekdays; it's the only time that works.",
			}, upd: true, why: []string{"work hours changed"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The coach, {v}, is the main contact for the training group.",
			}, upd: true, why: []string{"the group got a new coach"}},
			{key: "gym", label: "gym", pool: "gym", set: []string{
				"For strength work I joined {v}; that's the gym.",
			}, upd: true, why: []string{"the old gym closed for refurbishment"}},
			{key: "budget", label: "budget", pool: "amount:150:1200:10", set: []string{
				"The budget for {short} — shoes, gym, entry fee — is {v}.",
			}},
			{key: "ref", label: "registration reference number", pool: "ref", set: []string{
				"The race registration reference number is {v}.",
			}},
		},
		list: listSpec{kind: "step", what: "a warm-up routine", ask: []string{
			"Can you give me a warm-up routine, in order, before each run?",
			"List the warm-up steps I should do before training sessions, in order.",
		}, items: []string{
			"Brisk walk — five minutes to raise the heart rate",
			"Leg swings — front to back, then side to side",
			"Walking lunges — ten per leg, slow and controlled",
			"Hip circles — loosen the hips in both directions",
			"High knees — thirty seconds, light on the feet",
			"Butt kicks — thirty seconds to wake up the hamstrings",
			"Ankle rolls — both directions, ten each",
			"Glute bridges — twelve reps to switch on the glutes",
			"Strides — four short accelerations",
			"Calf raises — fifteen slow reps",
			"Arm swings — loosen the shoulders",
			"Easy jog — three minutes before the real work",
		}, outro: []string{"The whole routine should take about twelve minutes."}},
		subs: []subtopic{
			{ask: []string{"How fast should I build up mileage for the {race}?", "How much should I increase training each week?"}, say: []string{
				"Increase weekly volume by about ten percent at most.",
				"Every fourth week, cut volume back to let the body adapt.",
				"Most runs should feel easy enough to hold a conversation.",
				"One longer run a week builds endurance better than several medium ones.",
				"Consistency across months beats heroic single weeks.",
				"If something hurts in a sharp or worsening way, stop and rest.",
			}},
			{ask: []string{"What should I eat around training for {short}?", "Any nutrition advice for the {race} build-up?"}, say: []string{
				"Eat a small carbohydrate-rich snack an hour or two before harder sessions.",
				"After training, combine protein and carbohydrates within a couple of hours.",
				"Hydration starts the day before, not ten minutes before the run.",
				"Practise race-day breakfast on long training runs.",
				"Don't try anything new on race day — food, shoes or kit.",
				"Regular meals matter more than supplements.",
			}},
			{ask: []string{"How do I avoid injury while training for the {race}?", "My knees are grumbling. What should I change?"}, say: []string{
				"Strength work twice a week protects knees and hips.",
				"Replace shoes every few hundred miles.",
				"Sleep is the most underrated recovery tool.",
				"Vary surfaces when you can; trails are kinder than concrete.",
				"A physiotherapist visit early is cheaper than weeks off later.",
				"Easy days should be genuinely easy.",
			}},
			{ask: []string{"How do I stay motivated through {short}?", "I'm losing motivation for the training. Ideas?"}, say: []string{
				"Put sessions in your calendar like appointments.",
				"Train with someone at least once a week.",
				"Track small wins: a faster kilometre, a longer run, a better week.",
				"Have a shorter fallback session for bad days rather than skipping.",
				"Sign up for a small tune-up event midway through the plan.",
				"Remember why you signed up in the first place and write it down.",
			}},
			{ask: []string{"What should race week look like for the {race}?", "How do I taper before race day?"}, say: []string{
				"Cut volume noticeably in the final week but keep a little intensity.",
				"Prepare kit and check logistics two days before, not the night before.",
				"Plan your route to the start and arrive early.",
				"Start conservatively; the first kilometres should feel almost too easy.",
				"Sleep two nights before the race matters more than the night before.",
				"Enjoy it — you've done the work.",
			}},
		},
	},
	{
		key: "party", noun: "party",
		ctx:   []ctxSpec{{"occasion", "occasion"}},
		title: "{poss} {occasion}",
		alias: []string{"the party", "the {occasion}", "{short}", "the party planning"},
		introSelf: []string{
			"I'm throwing a {occasion} and I've left it a bit late. Can you help me plan it properly?",
			"Planning a {occasion} — my first time hosting anything this size. Help me keep it together?",
		},
		introOther: []string{
			"I'm organising a {occasion} for {rel} {anchor}. Let's keep everything about {anchor}'s party straight here.",
			"I'm helping plan {anchor}'s {occasion} — {rel} {anchor}. I'll note the details with you as we go.",
		},
		introReply: []string{
			"A {occasion} is a lovely thing to host — let's make it fun rather than frantic.",
			"Great, let's put {title} on a simple plan.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:400:5000:50", set: []string{
				"The budget for {short} is {v}.",
			}, upd: true, why: []string{"the family is splitting costs"}},
			{key: "date", label: "party date", pool: "date", set: []string{
				"The party is on {v}.",
			}, upd: true, why: []string{"the guest of honour has a work trip"}},
			{key: "time", label: "start time", pool: "time", set: []string{
				"It starts at {v}.",
			}, upd: true, why: []string{"the hall needs longer to set up"}},
			{key: "venue", label: "venue", pool: "venue", set: []string{
				"We booked {v} as the venue.",
			}, upd: true, why: []string{"the first hall's kitchen failed inspection"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The events manager there, {v}, is our main contact.",
			}},
			{key: "caterer", label: "caterer", pool: "caterer", set: []string{
				"{v} will be the caterer.",
			}},
			{key: "ref", label: "booking reference number", pool: "ref", set: []string{
				"The venue's booking reference number is {v}.",
			}},
		},
		list: listSpec{kind: "option", what: "theme ideas", ask: []string{
			"Give me a ranked list of theme ideas for {short}.",
			"Can you suggest [five|a few] themes for the party, best first?",
		}, items: []string{
			"Garden Tea Party — daytime, pastel, very relaxed",
			"Retro Arcade Night — games, neon, great for mixed ages",
			"Starlit Supper — long tables, candles, a sit-down feel",
			"Travel Through the Decades — each table a different era",
			"Backyard Carnival — simple games and street food",
			"Cinema Night — a screening of a favourite film",
			"Mediterranean Feast — big shared platters",
			"Vinyl Lounge — a record player and everyone brings one album",
			"Picnic in the Park — low effort, weather permitting",
			"Masquerade Evening — a bit glamorous",
			"Cook-Off Challenge — friendly competition with a judge",
			"Memory Lane — photos from every year on the walls",
		}, outro: []string{"Pick the one that the guest of honour would actually enjoy, not the one that photographs best."}},
		subs: []subtopic{
			{ask: []string{"How much food do I need for {short}?", "How do I estimate food and drinks for the party?"}, say: []string{
				"For a standing event, plan eight to ten bites per person per hour for the first two hours.",
				"Always have one substantial option for people who skipped dinner.",
				"Label dishes with allergens; it saves a lot of questions.",
				"Plan drinks at about two per guest for the first hour and one per hour after.",
				"Have plenty of water and a good non-alcoholic option.",
				"Leftovers are fine; running out is the thing people remember.",
			}},
			{ask: []string{"How do I send invitations for {short} so people actually reply?", "What's the best way to invite people to the party?"}, say: []string{
				"Send invitations three to four weeks ahead for a weekend party.",
				"Give a clear reply deadline and a single way to reply.",
				"A short reminder a week before boosts replies a lot.",
				"Mention dress code and parking right in the invitation.",
				"For a surprise, keep the guest list small enough to trust.",
				"Keep a simple list of replies and dietary needs.",
			}},
			{ask: []string{"What's a good schedule for the day of {short}?", "How should the party flow, hour by hour?"}, say: []string{
				"Arrive early enough to set up without rushing.",
				"Plan speeches after people have eaten but before energy dips.",
				"Have music volume low at the start and build it up.",
				"Assign a friend to handle the playlist and another for the cake.",
				"Build in a clear ending so the cleanup doesn't drag on.",
				"Take five minutes to actually enjoy it yourself.",
			}},
			{ask: []string{"How do I decorate for {short} without spending much?", "Cheap decoration ideas for the party?"}, say: []string{
				"Lighting does more than decorations: string lights and candles transform a room.",
				"Pick two colours and stick to them.",
				"Flowers from a market, split into small jars, look generous.",
				"Printed photos are cheap and personal.",
				"Borrow rather than buy anything you'll use once.",
				"Focus decoration where people gather: entrance, food and the cake table.",
			}},
			{ask: []string{"Any ideas for activities during {short}?", "Should we plan games for the party or just let people mingle?"}, say: []string{
				"A light activity gives guests who don't know each other something to do.",
				"A guestbook with prompts gets more heartfelt messages than a blank one.",
				"Keep games short and optional.",
				"A slideshow of photos running quietly works as background entertainment.",
				"A toast from one or two people is plenty.",
				"Leave plenty of time for just talking.",
			}},
		},
	},
	{
		key: "car", noun: "car search",
		ctx:   []ctxSpec{{"carkind", "carkind"}},
		title: "{poss} search for a {carkind}",
		alias: []string{"the car search", "the car", "{short}", "the {carkind} search"},
		introSelf: []string{
			"My old car finally died, so I'm shopping for a {carkind}. Can you help me do this without getting fleeced?",
			"I need to buy a {carkind} in the next month or two. Help me approach it sensibly?",
		},
		introOther: []string{
			"{rel} {anchor} is buying a {carkind} and asked me to help. Let's keep {anchor}'s car search organised here.",
			"I'm helping {rel} {anchor} shop for a {carkind}. I'll keep {anchor}'s details here.",
		},
		introReply: []string{
			"Buying a {carkind} goes much better with a plan and a hard spending limit.",
			"Happy to help — let's structure {title} so you stay in control.",
		},
		slots: []slotSpec{
			{key: "budget", label: "budget", pool: "amount:8000:42000:250", set: []string{
				"The budget for {short} is {v}, taxes included.",
			}, upd: true, why: []string{"the trade-in value came in lower", "we got a small bonus at work"}},
			{key: "dealer", label: "dealership", pool: "dealer", set: []string{
				"The dealership we're working with is {v}.",
			}, upd: true, why: []string{"the first dealer wouldn't move on price"}},
			{key: "contact", label: "main contact", pool: "person", set: []string{
				"The salesperson, {v}, is our main contact there.",
			}, upd: true, why: []string{"the salesperson changed branches"}},
			{key: "time", label: "test drive time", pool: "time", set: []string{
				"The test drive is booked for {v}.",
			}, upd: true, why: []string{"the car wasn't back from detailing"}},
			{key: "date", label: "pickup date", pool: "date", set: []string{
				"We can pick the car up on {v}.",
			}, upd: true, why: []string{"the paperwork took longer"}},
			{key: "ref", label: "quote reference number", pool: "ref", set: []string{
				"The quote reference number is {v}.",
			}},
		},
		list: listSpec{kind: "option", what: "models to test-drive", ask: []string{
			"Can you give me a ranked list of models worth test-driving?",
			"Which models should be on the test-drive list? Best first, please.",
		}, items: []string{
			"Kestrel LX — reliable, cheap to run, a bit dull",
			"Aurora Sport — fun to drive, smaller boot",
			"Tundra Compact — roomy for its size, good resale",
			"Vega Hybrid — great in city traffic",
			"Meridian Estate — practical, lots of space",
			"Lynx GT — quick and comfortable on long trips",
			"Solace EV — quiet, cheap to charge at home",
			"Piccolo City — easy to park, basic interior",
			"Ranger Trail — rugged, thirstier",
			"Orion Touring — smooth ride, pricier to insure",
			"Breeze Plus — a safe, boring, sensible choice",
			"Summit Cross — higher seating position, good visibility",
		}, outro: []string{"Drive the top two back to back on the same day so the comparison is fair."}},
		subs: []subtopic{
			{ask: []string{"What should I check on a used {carkind}?", "What do I look for on a test drive?"}, say: []string{
				"Ask for the full service history and check it matches the mileage.",
				"Check tyres for uneven wear; it can hint at alignment problems.",
				"Listen for knocks over bumps and whines when accelerating.",
				"Test every button, window and light, however boring.",
				"Drive on a motorway and in town to feel both.",
				"An independent inspection is cheap insurance against a bad buy.",
			}},
			{ask: []string{"How do I negotiate the price on the {carkind}?", "Any tips for haggling at the dealer?"}, say: []string{
				"Know the market price for the exact model and mileage before you go.",
				"Negotiate the total price, not the monthly payment.",
				"Be ready to walk away; it's your strongest move.",
				"Treat the trade-in as a separate negotiation.",
				"End of month or quarter can make dealers more flexible.",
				"Get every promise in writing before you sign.",
			}},
			{ask: []string{"Should I finance the {carkind} or pay cash?", "How do I think about car financing?"}, say: []string{
				"Compare the dealer's financing with a bank or credit union offer.",
				"Look at the total cost over the loan, not just the rate.",
				"A bigger deposit lowers both payments and interest.",
				"Avoid add-ons bundled into financing unless you really want them.",
				"Check for early repayment penalties.",
				"Keep a cushion for insurance and first-year maintenance.",
			}},
			{ask: []string{"What running costs should I plan for with a {carkind}?", "How much will the car actually cost per year?"}, say: []string{
				"Insurance quotes vary a lot by model; get them before buying.",
				"Set money aside for tyres, servicing and one unexpected repair a year.",
				"Fuel or charging costs depend mostly on your commute length.",
				"Depreciation is the biggest cost most people forget.",
				"Parking and tolls add up in a city.",
				"A simple spreadsheet makes the comparison between models obvious.",
			}},
			{ask: []string{"Is it better to buy the {carkind} from a dealer or privately?", "Private seller or dealer — what do you think?"}, say: []string{
				"Dealers offer some warranty and recourse, at a higher price.",
				"Private sales can be cheaper but you carry more risk.",
				"With private sellers, meet at their home address and check documents match.",
				"Run a history check for outstanding finance or accident records.",
				"Never pay the full amount before you have the keys and papers.",
				"Either way, a test drive and an inspection are non-negotiable.",
			}},
		},
	},
}

func domainByKey(k string) *domain {
	for _, d := range domains {
		if d.key == k {
			return d
		}
	}
	return nil
}
