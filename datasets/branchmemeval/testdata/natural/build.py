#!/usr/bin/env python3
"""Builds natural.json (branchmemeval/v1) from the hand-written conversations below.

Each conversation is a list of turns (branch, user, assistant) or questions
(branch, user, assistant, gold, confounder, confounder branch, evidence turn numbers).
Run: python3 build.py > natural.json
"""
import json, datetime

T = lambda b, u, a, **kw: dict(b=b, u=u, a=a, **kw)
def Q(b, u, a, gold, conf, cb, ev, dim="B1"):
    return dict(b=b, u=u, a=a, q=dict(gold=gold, conf=conf, cb=cb, ev=ev, dim=dim))

CONVS = []

# n01: work migration / sourdough / broken car. Casual, lower-case, a bit ranty.
CONVS.append(dict(id="n01", split="dev", start="2025-02-03T18:05:00Z",
 branches=[("w", "work", "Billing database migration off MySQL"), ("b", "baking", "Flat sourdough loaves"), ("c", "car", "Replacing a car after a transmission failure")],
 turns=[
 T("w", "ugh, my manager just pulled the billing database migration forward. we now have to be completely off MySQL by March 14 instead of end of April.",
   "That's about six weeks earlier than planned. It's worth listing what must move before March 14 and what can wait until after the cutover."),
 T("w", "the team is me, Priya and a contractor called Tomasz, who only has 20 hours a week for us",
   "So roughly two and a half people. With Tomasz at 20 hours, I'd give him self-contained pieces like the data-validation scripts."),
 T("w", "yeah that's what I was thinking. we'll probably do the actual cutover on a saturday night when invoice traffic is lowest",
   "A Saturday night window makes sense for billing. Plan a rollback point and keep the old MySQL replica read-only for a few days."),
 T("b", "completely different subject, but I've been trying to bake sourdough and every loaf comes out flat as a pancake. my starter is about three weeks old",
   "Flat loaves usually mean a weak starter or over-proofing. At three weeks a starter is often still settling, so let's check how active it is."),
 T("b", "i feed it once a day, 50 g rye flour and 50 g water. the kitchen is cold though, maybe 18 degrees",
   "At 18 degrees fermentation is slow, so once-a-day feeding may leave it sluggish. A warmer spot around 24-26 degrees would help a lot."),
 T("b", "ok I'll try putting it in the oven with just the light on",
   "Good idea; the oven light usually keeps it a few degrees warmer. Leave the door ajar if it gets above 28."),
 T("c", "oh, and my car broke down on the way home last night. the mechanic says the transmission is shot and it's not worth fixing, so I need a new one",
   "Sorry to hear it. If the repair costs more than the car is worth, replacing it is sensible. What budget and kind of car do you have in mind?"),
 T("c", "budget is about 15,000 euros, something small, ideally a hybrid since I mostly drive in town",
   "15,000 euros gets you a decent used small hybrid. Look at age, battery health reports and service history."),
 T("c", "my neighbour swears by his Yaris hybrid, he's had it six years with zero problems",
   "The Yaris hybrid has a strong reliability record. A 2018-2020 model should fit the budget."),
 Q("w", "So what's the deadline for getting off MySQL now?",
   "You need to be completely off MySQL by March 14.", "March 14", "end of April", "w", [1]),
 T("w", "Priya wants to run both databases side by side for a week before we switch, is that overkill?",
   "Not overkill for billing. A week of dual writes with nightly reconciliation catches most mismatches, as long as it fits before March 14."),
 T("b", "update on the bread: this morning's loaf actually rose! the oven light trick worked",
   "That's great news. The warmer starter made the difference. Keep the same routine for a few bakes before changing anything else."),
 Q("b", "how cold did I say the kitchen was, by the way?",
   "You said the kitchen is about 18 degrees.", "18 degrees", "20 hours", "w", [5]),
 T("c", "back to the car hunt, a dealer has a 2019 Yaris with 60,000 km for 13,500",
   "At 13,500 that's under your budget. Ask for the hybrid battery check and the service book."),
 Q("c", "and how much was I planning to spend in total?",
   "Your budget is about 15,000 euros.", "15,000 euros", "13,500", "c", [8]),
 ]))

# n02: kid's birthday / physio for a knee / tax return. Warm, chatty parent.
CONVS.append(dict(id="n02", split="dev", start="2025-03-10T07:40:00Z",
 branches=[("p", "party", "Lena's seventh birthday party"), ("k", "health", "Knee physio after a running injury"), ("t", "tax", "Filing the tax return")],
 turns=[
 T("p", "Morning! Lena turns seven on the 22nd and she's begging for a dinosaur party. We're thinking of having it at the climbing hall in town.",
   "A dinosaur theme at a climbing hall sounds fun. Do you know how many kids you'll invite and whether the hall does food?"),
 T("p", "Probably 12 kids from her class. The hall charges 18 euros per child including juice and a snack.",
   "So about 216 euros for 12 children. You could add a dinosaur cake and small fossil kits as party favours."),
 T("p", "Fossil kits! She would lose her mind. I'll order those.",
   "Small dig kits are cheap in bulk. Order them this week so they arrive before the 22nd."),
 T("k", "Random thing while I have you: my left knee has been aching since my long run on Sunday, mostly going down stairs.",
   "Pain going downstairs after a long run often points to the kneecap area. Rest from running for a few days and ice it; if it persists, see a physio."),
 T("k", "I booked a physio, Dr. Okafor, for Thursday at 8:15 before work.",
   "Good. Mention that it hurts on stairs and when it started; Dr. Okafor will probably test your hip and quad strength too."),
 T("t", "On another note, I still haven't done my tax return and the deadline is July 31. I freelanced a bit last year, which makes it messier.",
   "Freelance income means you'll need your invoices and business expenses. Start by totalling what you invoiced last year."),
 T("t", "I invoiced about 9,400 euros in total, mostly translation work.",
   "Then you report 9,400 euros of self-employment income, minus deductible costs like software, a share of your internet and any courses."),
 T("t", "I paid for a CAT tool licence, 320 a year. That counts, right?",
   "Yes, a translation tool licence is a business expense, so the 320 euros is deductible."),
 Q("k", "Wait, when was my physio appointment again?",
   "Your appointment with Dr. Okafor is on Thursday at 8:15.", "Thursday at 8:15", "July 31", "t", [5]),
 T("k", "Okay good. Should I still do the yoga class on Wednesday or skip it?",
   "Gentle yoga is fine if you avoid deep knee bends. Skip anything that brings the stair pain back."),
 T("p", "Oh the party! The climbing hall emailed, they can only do 10 kids max now, not 12.",
   "Then you'll need to trim the list to 10 or ask if two kids can join as spectators. At 18 euros each that's 180 euros."),
 Q("p", "so how many kids can we actually have?",
   "The climbing hall can take at most 10 kids now.", "10 kids", "12 kids", "p", [11], dim="B2"),
 T("t", "ok, tax again. do I have to declare the 50 euros my aunt sent for my birthday?",
   "No, small personal gifts like that aren't income, so you don't declare them."),
 Q("t", "and what was the licence fee I can deduct?",
   "The CAT tool licence, 320 euros a year, is deductible.", "320", "18 euros", "p", [8]),
 ]))

# n03: terse texter. Flat hunting in Lisbon / learning Japanese / best man speech.
CONVS.append(dict(id="n03", split="dev", start="2025-04-02T21:10:00Z",
 branches=[("f", "housing", "Renting a flat in Lisbon"), ("j", "language", "Learning Japanese"), ("s", "speech", "Best man speech for Jonas")],
 turns=[
 T("f", "flat hunting in lisbon is brutal", "It's a tight market. What area and rent are you aiming for?"),
 T("f", "arroios or anjos. max 1100 a month", "Both areas have listings around 1,000-1,100 for a one-bedroom. Move fast on good ones."),
 T("f", "saw one on rua maria andrade, 1050, tiny balcony", "That's within budget, and a balcony is rare at that price. Ask about the deposit and the contract length."),
 T("f", "they want 3 months deposit", "Three months is on the high side but not unusual in Lisbon. Try negotiating to two."),
 T("j", "diff topic. my japanese is stuck. 6 months on duolingo and i cant read anything", "That's common; apps teach recognition but not reading. Learn hiragana and katakana properly, then graded readers."),
 T("j", "know hiragana. katakana is a mess", "Then drill katakana for two weeks with loanwords you already know, like menus and brand names."),
 T("j", "signed up for a class at the cultural centre, tuesdays 7pm", "A weekly class gives structure. Review the material on the weekend so Tuesdays build on each other."),
 T("s", "also jonas asked me to be best man. wedding is in june. i have to give a speech. help", "Congratulations! A good speech is short: an opening, one or two stories about Jonas, something kind about his partner, and a toast."),
 T("s", "his partner is marta. they met at a climbing gym in porto", "That's a nice detail for the speech: how they met at the climbing gym in Porto can be your bridge from Jonas to Marta."),
 Q("f", "whats the rent on the balcony one", "The flat on Rua Maria Andrade is 1,050 a month.", "1050", "1100", "f", [3]),
 T("f", "landlord agreed to 2 months deposit", "Nice, that saves you a month's rent up front. Get it in the contract."),
 T("s", "for the speech, story idea: jonas got us lost in the alps for 9 hours", "Perfect material, as long as it ends warmly. Keep it to a minute or so."),
 Q("j", "when's my class", "Your Japanese class is on Tuesdays at 7pm.", "Tuesdays 7pm", "June", "s", [7]),
 Q("s", "and where did they meet again", "Jonas and Marta met at a climbing gym in Porto.", "Porto", "Lisbon", "f", [9]),
 ]))

# n04: formal, long messages. Grant proposal / aphids in the garden / mother moving to assisted living.
CONVS.append(dict(id="n04", split="dev", start="2025-05-14T09:00:00Z",
 branches=[("g", "grant", "Research grant proposal on river sediment"), ("a", "garden", "Aphids on the roses"), ("m", "family", "Mother moving to assisted living")],
 turns=[
 T("g", "I am preparing a grant proposal for the national science foundation on microplastics in river sediment. The submission deadline is 9 June and the ceiling is 480,000 over three years.",
   "That is a substantial call. I would suggest drafting the aims page first, since reviewers read it first, and budgeting against the 480,000 ceiling early."),
 T("g", "My co-investigator is Dr. Helga Brandt from the hydrology group. She will lead the field sampling on the Elbe.",
   "Having Dr. Brandt lead field sampling strengthens the feasibility section. Describe the sampling sites on the Elbe and how often you will sample."),
 T("g", "We plan quarterly sampling at five sites. Could you help me phrase the first aim?",
   "Aim 1 could read: Quantify seasonal variation in microplastic concentration and composition in Elbe sediments through quarterly sampling at five sites."),
 T("a", "On a completely unrelated matter, my climbing roses are covered in aphids this week. I would prefer not to use chemical sprays.",
   "Aphids can be controlled without chemicals: spray them off with a strong jet of water, encourage ladybirds, or use a mild soap solution."),
 T("a", "I tried the water jet yesterday. They were back this morning, particularly on the new shoots.",
   "New shoots attract them most. Repeat the water every two days for a week and consider a dilute soap spray of about one teaspoon per litre."),
 T("m", "I also need advice about my mother. She is 84 and we have decided she should move into assisted living. The home we prefer is Lindenhof, which has a room available from 1 July.",
   "That is a big transition. With a room at Lindenhof from 1 July, you have about six weeks to plan the move, sort her belongings and handle the paperwork."),
 T("m", "The monthly fee at Lindenhof is 3,900, and her pension covers about two thirds of that.",
   "So roughly 1,300 a month would need to come from savings or family. Check whether she qualifies for a care allowance to close the gap."),
 Q("g", "Returning to the proposal: what is the budget ceiling we are working with?",
   "The call's ceiling is 480,000 over three years.", "480,000", "3,900", "m", [1]),
 T("g", "Dr. Brandt suggests adding a sixth site downstream of the harbour. Would that strain the budget?",
   "A sixth site adds travel and lab costs of perhaps 8 to 10 percent. It could still fit under the ceiling if you reduce the conference travel line."),
 T("m", "My brother has offered to cover half of the shortfall for our mother.",
   "That helps: with your brother covering half, each of you would contribute around 650 a month."),
 Q("m", "From which date is the room at the home available?",
   "The room at Lindenhof is available from 1 July.", "1 July", "9 June", "g", [6]),
 T("a", "The ladybirds have arrived on the roses, and the aphids are noticeably fewer.",
   "Excellent, the ladybirds will handle most of it from here. Stop the soap spray so you don't harm their larvae."),
 Q("a", "Remind me of the soap dilution you suggested.",
   "About one teaspoon of mild soap per litre of water.", "one teaspoon per litre", "five sites", "g", [5]),
 Q("g", "How many sampling sites did we originally plan?",
   "You originally planned quarterly sampling at five sites.", "five sites", "sixth site", "g", [3]),
 ]))

# n05: gamer. PC build / Iceland trip / dog with an upset stomach. Emoji-free but slangy.
CONVS.append(dict(id="n05", split="dev", start="2025-06-20T19:30:00Z",
 branches=[("pc", "hardware", "Building a gaming PC"), ("i", "travel", "Road trip around Iceland"), ("d", "pet", "Dog with an upset stomach")],
 turns=[
 T("pc", "yo, finally building a new pc. budget 1,600 bucks, mainly for 1440p gaming",
   "Nice. At 1,600 for 1440p, put the most into the GPU: something in the RX 7800 XT or RTX 4070 Super class, with a mid-range CPU."),
 T("pc", "going with a ryzen 7 7700 and the 4070 super i think",
   "Solid pairing. Add 32 GB of DDR5, a 1 TB NVMe drive and a 750 W power supply."),
 T("pc", "psu wise, is the corsair rm750e fine?", "Yes, the RM750e is a reliable unit and plenty for that build."),
 T("i", "switching gears: me and my girlfriend are doing iceland in september, ring road, 10 days",
   "Ten days is about right for the Ring Road. Book a car early and plan roughly 250-300 km a day with stops."),
 T("i", "we fly into keflavik on september 6 and rented a little 4x4 from a place called Blue Fjord Rentals",
   "A 4x4 gives you flexibility for gravel roads. Arriving September 6, you'll still have decent daylight."),
 T("i", "should we do the ring road clockwise or anticlockwise",
   "Anticlockwise puts the south coast waterfalls and Jokulsarlon early, when you're fresh; either works."),
 T("d", "ugh hold on, my dog just threw up again. third time today. he's a 4 year old beagle named Biscuit",
   "If Biscuit has vomited three times today, withhold food for a few hours, offer small amounts of water, and call a vet if it continues or he seems lethargic."),
 T("d", "called the vet, they can see him tomorrow at 10:30",
   "Good. Until then keep him calm, small sips of water, and note anything he might have eaten."),
 Q("pc", "wait which gpu did we land on", "You're going with the RTX 4070 Super.", "4070 super", "RM750e", "pc", [2]),
 T("pc", "microcenter has the 4070 super for 589 rn", "That's a good price for that card; it keeps the build under 1,600."),
 T("i", "for iceland, do we need to book the blue lagoon ahead", "Yes, the Blue Lagoon needs a timed booking; it often sells out in September."),
 Q("i", "when do we land again", "You land at Keflavik on September 6.", "september 6", "10:30", "d", [5]),
 T("d", "biscuit update: vet says mild gastritis, bland diet of rice and chicken for 3 days",
   "Glad it's mild. Keep portions small and reintroduce his normal food gradually after the three days."),
 Q("d", "and when was his appointment", "Biscuit's vet appointment was at 10:30 the next day.", "10:30", "september 6", "i", [8]),
 ]))

# n06: founder. Pitch deck / marathon training / a cracked tooth. Mixed, some long some short.
CONVS.append(dict(id="n06", split="dev", start="2025-08-04T06:15:00Z",
 branches=[("v", "startup", "Seed pitch deck for Loomwise"), ("r", "running", "Marathon training plan"), ("th", "dental", "Cracked molar")],
 turns=[
 T("r", "5:30 am run done. 14 km at easy pace. the Amsterdam marathon is on October 19 and I want to go under 3:45",
   "Nice start. For a sub-3:45 in Amsterdam you'll want about 16 weeks of structured training with one long run and one tempo session per week."),
 T("r", "my longest run so far is 24 km. how far should the longest long run go?",
   "Build up to 32-34 km about three to four weeks before race day, then taper."),
 T("v", "ok work brain. we're raising a seed round for Loomwise, our textile-recycling startup. target is 1.2 million and the first investor meeting is with Northgate Ventures on August 12",
   "Congratulations. For August 12 you need a tight 12-slide deck: problem, solution, traction, market, business model, team, and the ask of 1.2 million."),
 T("v", "our traction slide is weak. we have 3 pilot customers and 40 tonnes processed",
   "That's real traction for a seed round. Show the 40 tonnes as a monthly growth curve and name the pilots if they allow it."),
 T("v", "one pilot is a hotel chain, Hotel Meridor, they send us all their old linen",
   "A hotel chain is a great logo. A short quote from Hotel Meridor about cost savings would make the slide stronger."),
 T("th", "Also, totally random, I cracked a molar on an olive pit at lunch. it doesn't hurt much but there's a sharp edge",
   "A cracked molar should be seen soon even if it doesn't hurt, because cracks can spread. Avoid chewing on that side until a dentist checks it."),
 T("th", "dentist can do wednesday 16:40", "Good, Wednesday at 16:40. Until then, soft food on the other side and sugar-free gum over the sharp edge if it cuts your tongue."),
 Q("r", "what was my target time for the race?", "You want to run the Amsterdam marathon in under 3:45.", "3:45", "16:40", "th", [1]),
 T("r", "should I do my tempo on tuesday or thursday", "Thursday gives you more recovery after the weekend long run, so Thursday is better."),
 T("v", "about the deck — investor friend says to cut the market slide to one number",
   "That's good advice. Use the serviceable market, one clear figure with a source, and move the rest to the appendix."),
 Q("v", "remind me, who's the first meeting with and when?", "Your first meeting is with Northgate Ventures on August 12.", "August 12", "October 19", "r", [3]),
 Q("th", "so what time's the dentist now?", "Your dentist appointment is on Wednesday at 16:40.", "16:40", "3:45", "r", [7]),
 T("v", "and how much are we asking for again, i keep blanking", "You're raising a seed round of 1.2 million."),
 Q("v", "which hotel chain is our pilot?", "Hotel Meridor is the hotel chain in your pilot.", "Hotel Meridor", "Northgate Ventures", "v", [5]),
 ]))

# n07 (held out): novelist. Manuscript edits / leaking kitchen tap / card fraud.
CONVS.append(dict(id="n07", split="heldout", start="2025-09-15T13:20:00Z",
 branches=[("n", "writing", "Revising the novel manuscript"), ("l", "plumbing", "Leaking kitchen tap"), ("f", "banking", "Fraud on a debit card")],
 turns=[
 T("n", "My editor sent back notes on the novel. She wants the manuscript cut from 112,000 words down to 95,000 by November 30.",
   "Cutting 17,000 words is about 15 percent. Look first for scenes that repeat an emotional beat and for long transitions between chapters."),
 T("n", "The middle section drags, especially the chapters set in the lighthouse.",
   "Then the lighthouse chapters are a good place to start. Try merging two of them and keeping only the scenes that change what Ada wants."),
 T("n", "Ada is my protagonist, yes. My editor, Ruth, thinks the lighthouse keeper should die earlier.",
   "Moving his death earlier would raise the stakes for Ada in the middle section and naturally tighten those chapters."),
 T("l", "Different topic: the kitchen tap has been dripping for a week and now there's water under the sink.",
   "Water under the sink suggests a leak at the connections, not only the tap. Turn off the isolation valve and put a bowl under it."),
 T("l", "Found it, the flexible hose is split. A plumber called Marek can come on Friday between 8 and 10.",
   "A split hose is a cheap fix. Marek can replace it in minutes; keep the valve closed until Friday."),
 T("f", "Oh great, and now my bank texted me about a payment of 849 euros to an electronics shop I've never heard of.",
   "That sounds like card fraud. Block the card in your banking app immediately, then call the bank's fraud line to dispute the payment."),
 T("f", "Blocked it. The bank opened a dispute, reference number DX-40718.",
   "Good. Keep DX-40718 handy; refunds for disputed card payments usually take a few weeks."),
 Q("n", "What word count does Ruth want in the end?", "Ruth wants the manuscript cut to 95,000 words.", "95,000", "112,000", "n", [1]),
 T("n", "I cut one lighthouse chapter entirely this morning. About 4,000 words gone.",
   "Good progress: that's almost a quarter of the cut. Check that nothing later depends on that chapter."),
 Q("l", "when's the plumber coming?", "Marek is coming on Friday between 8 and 10.", "Friday between 8 and 10", "November 30", "n", [5]),
 T("f", "The bank says the refund will be provisional until the investigation closes.",
   "That's standard. The money is back in your account but can be reversed if the investigation finds against you, which is unlikely here."),
 Q("f", "and the payment amount was what?", "The fraudulent payment was 849 euros.", "849", "4,000", "n", [6]),
 Q("n", "Going back to the novel, who is my editor again?", "Your editor is Ruth.", "Ruth", "Marek", "l", [3]),
 ]))

# n08 (held out): choir + visa application + a friend's house-warming. Mixed register.
CONVS.append(dict(id="n08", split="heldout", start="2025-10-07T17:00:00Z",
 branches=[("c", "music", "Choir winter concert"), ("v", "visa", "Visa application for Canada"), ("h", "social", "Gift for a house-warming")],
 turns=[
 T("v", "I'm applying for a Canadian work permit and the biometrics appointment is on October 23 at the Vienna centre.",
   "Bring your passport and the appointment letter to Vienna on October 23. Biometrics take about 15 minutes."),
 T("v", "the application fee was 255 dollars plus 85 for biometrics",
   "So 340 dollars in total. Keep the receipts in case you need them later."),
 T("c", "Separately, our choir's winter concert is December 14 at St. Florian's church and I've been asked to sing the alto solo in the Rutter piece.",
   "Congratulations on the solo! With the concert on December 14, you have about nine weeks to work on it."),
 T("c", "The solo goes up to a high E and I crack on it every time.",
   "High notes often crack from pushing. Practise it on a lip trill and gradually add the vowel, keeping the breath support low."),
 T("h", "oh and my friend Selin just bought her first flat, house-warming is saturday. what do I bring? she loves cooking",
   "For someone who loves cooking, a good olive oil, a cast-iron pan or a cookbook from a cuisine she likes would all be welcome."),
 T("h", "she's really into turkish and persian food", "Then Samin Nosrat or a Persian cookbook like 'Bottom of the Pot' would be a lovely choice, maybe with a bag of saffron."),
 Q("v", "what was the total I paid for the permit?", "You paid 340 dollars: 255 for the application and 85 for biometrics.", "340", "255", "v", [2]),
 T("v", "They emailed asking for a police certificate too, within 30 days.",
   "Request it right away; police certificates can take a couple of weeks. Upload it within the 30 days."),
 T("c", "The choir director said I should practise the solo with the pianist on Thursdays.",
   "Working with the pianist weekly will help a lot with timing and confidence on the high E."),
 Q("c", "where's the concert being held?", "The concert is at St. Florian's church.", "St. Florian's church", "Vienna", "v", [3]),
 T("h", "got her the persian cookbook and saffron", "She'll love that. Add a short note wishing her happy cooking in the new kitchen."),
 Q("v", "by the way when is my biometrics appointment?", "Your biometrics appointment is on October 23 at the Vienna centre.", "October 23", "December 14", "c", [1]),
 Q("c", "and the date of the concert?", "The winter concert is on December 14.", "December 14", "October 23", "v", [3]),
 ]))

def build():
    sessions, notes = [], []
    for c in CONVS:
        sid = c["id"]
        t = datetime.datetime.fromisoformat(c["start"].replace("Z", "+00:00"))
        turns, tnotes, qnotes = [], [], []
        seen = set()
        qn = 0
        gaps = [3, 4, 2, 5, 3, 6, 2, 4]
        for i, x in enumerate(c["turns"]):
            tid = "%s-t%03d" % (sid, i + 1)
            t = t + datetime.timedelta(minutes=gaps[i % len(gaps)])
            turn = {"id": tid, "time": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "user": x["u"], "assistant": x["a"]}
            act = "set" if x["b"] in seen else "intro"
            if "q" in x:
                qn += 1
                qid = "%s-q%02d" % (sid, qn)
                q = x["q"]
                turn["question"] = {"id": qid, "gold": q["gold"], "confounder": q["conf"]}
                act = "question"
                ev = ["%s-t%03d" % (sid, e) for e in q["ev"]]
                for e in q["ev"]:
                    assert q["gold"].lower() in (c["turns"][e - 1]["u"] + " " + c["turns"][e - 1]["a"]).lower(), (tid, q["gold"])
                    assert c["turns"][e - 1]["b"] == x["b"], (tid, e)
                conf_turn = ""
                for j in range(i):
                    y = c["turns"][j]
                    if y["b"] == q["cb"] and q["conf"].lower() in (y["u"] + " " + y["a"]).lower():
                        conf_turn = "%s-t%03d" % (sid, j + 1)
                        break
                assert conf_turn, (tid, q["conf"])
                qnotes.append({"question": qid, "turn": tid, "dimension": q["dim"], "family": "natural", "branch": sid + "-" + x["b"],
                               "evidence": ev, "confounder_turn": conf_turn, "confounder_branch": sid + "-" + q["cb"]})
            seen.add(x["b"])
            turns.append(turn)
            tnotes.append({"turn": tid, "branch": sid + "-" + x["b"], "act": act})
        sessions.append({"id": sid, "turns": turns})
        notes.append({"session": sid, "family": "natural", "branches": [{"id": sid + "-" + b, "domain": d, "title": ti} for b, d, ti in c["branches"]],
                      "turns": tnotes, "questions": qnotes})
    return sessions, notes

def main():
    import sys
    split = sys.argv[1] if len(sys.argv) > 1 else "all"
    global CONVS
    if split != "all":
        CONVS = [c for c in CONVS if c["split"] == split]
    sessions, notes = build()
    inter = sum(1 for s in sessions for t in s["turns"] if "question" not in t)
    f = {"format": "branchmemeval/v1", "seed": 0, "verbalizer": "hand-written",
         "composition": {"families": [{"family": "natural", "sessions": len(sessions), "questions": [{"dimension": "B1", "count": sum(1 for n in notes for q in n["questions"] if q["dimension"] == "B1")}, {"dimension": "B2", "count": sum(1 for n in notes for q in n["questions"] if q["dimension"] == "B2")}]}],
                         "interactions": inter, "min_turns": min(len(s["turns"]) for s in sessions), "max_turns": max(len(s["turns"]) for s in sessions)},
         "sessions": sessions, "annotations": {"sessions": notes}}
    json.dump(f, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")

main()
