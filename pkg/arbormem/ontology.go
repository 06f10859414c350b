package arbormem

import (
	"fmt"
	"strings"
	"sync"
)

// Attribute is one category of the attribute ontology used to tag atomic
// facts (paper appendix D, atomic_fact_miner and attribute_tag_predictor).
// The ontology is data: prompts render it from this table, and the offline
// tagger matches its cue words.
type Attribute struct {
	// Tag is the ontology code ("2.4").
	Tag string
	// Name is the category name ("Daily Routines").
	Name string
	// Short is the short label used by the tag predictor ("Media").
	Short string
	// Examples are the sub-attributes the paper lists for the category.
	Examples []string
	// Cues are extra lower-case words the rule-based tagger treats as
	// evidence for the category (ours, not the paper's).
	Cues []string
}

// Ontology is the paper's attribute ontology (appendix D, "FULL ATTRIBUTE
// ONTOLOGY"), in the paper's order.
var Ontology = []Attribute{
	{Tag: "1.0", Name: "Demographic", Short: "Demographic",
		Examples: []string{"age", "gender", "ethnicity", "nationality", "language", "education level", "occupation"},
		Cues:     []string{"born", "years old", "birthday", "degree", "job", "work as", "engineer", "teacher", "nurse", "student", "live in", "lives in", "moved to", "hometown", "city", "speak", "native"}},
	{Tag: "2.1", Name: "Shopping", Short: "Shopping",
		Examples: []string{"online shopping frequency", "favorite stores", "loyalty program", "sales events", "coupons", "gift purchasing habits", "eco-friendly product preferences", "luxury vs budget shopping", "technology gadget purchasing", "fashion and apparel", "grocery shopping", "shopping for others"},
		Cues:     []string{"bought", "buy", "purchase", "store", "shop", "order", "coupon", "discount", "gift", "price", "cost", "budget", "spent", "spend", "$"}},
	{Tag: "2.2", Name: "Media Consumption", Short: "Media",
		Examples: []string{"book", "movie", "tv show", "music", "podcast", "video game", "streaming service", "theater", "magazine and newspaper", "youtube", "educational content", "audiobook and e-book"},
		Cues:     []string{"watch", "watched", "read", "reading", "novel", "film", "series", "song", "album", "listen", "netflix", "episode", "author"}},
	{Tag: "2.3", Name: "Social Media Engagement", Short: "Social Media",
		Examples: []string{"posting", "commenting", "followers", "groups", "hashtags", "campaigns", "messaging", "live streaming", "social media breaks"},
		Cues:     []string{"instagram", "twitter", "tiktok", "facebook", "post", "followers", "hashtag", "reddit"}},
	{Tag: "2.4", Name: "Daily Routines", Short: "Daily Routines",
		Examples: []string{"wake-up time", "bedtime", "work or school start time", "meal time", "exercise routines", "coffee or tea break", "commuting", "evening activities", "weekend routines", "cleaning schedules", "time spent with family or friends"},
		Cues:     []string{"commute", "wake", "morning", "bed", "routine", "every day", "daily", "workout", "gym", "run", "coffee", "schedule", "weekend"}},
	{Tag: "2.5", Name: "Travel", Short: "Travel",
		Examples: []string{"frequency", "destination", "road trips", "travel agencies", "outdoor adventures", "airlines", "hotel", "travel with family vs solo travel", "packing habits"},
		Cues:     []string{"trip", "travel", "flight", "fly", "hotel", "hostel", "visit", "vacation", "itinerary", "airport", "tour", "destination"}},
	{Tag: "2.6", Name: "Recreation", Short: "Recreation",
		Examples: []string{"reading", "painting", "musical instruments", "dancing", "watching sports", "participating in sports", "gardening", "bird watching", "fishing or hunting", "board games", "video games", "fitness classes", "yoga", "sculpting", "photography", "stand-up comedy", "writing", "collecting", "model building", "aquarium keeping"},
		Cues:     []string{"hobby", "play", "guitar", "piano", "hike", "hiking", "garden", "paint", "chess", "club", "league", "team", "practice"}},
	{Tag: "2.7", Name: "Eating and Cooking", Short: "Eating/Cooking",
		Examples: []string{"home cooking", "food delivery", "vegetarian or vegan", "favorite cuisines", "snacking habits", "barbecue", "baking", "cocktail mixing", "cooking classes"},
		Cues:     []string{"cook", "recipe", "dinner", "lunch", "breakfast", "restaurant", "food", "eat", "ate", "meal", "drink", "tea", "wine", "bake", "dish", "cuisine"}},
	{Tag: "2.8", Name: "Event Participation", Short: "Events",
		Examples: []string{"concerts", "theater", "galleries and museums", "sports games", "film festivals", "religious services", "book readings", "charity events", "trade shows", "lectures or workshops", "theme parks", "local markets", "networking events", "sports", "auto racing", "workshops", "museum tours"},
		Cues:     []string{"concert", "festival", "museum", "conference", "meetup", "event", "show", "game", "attend", "attended", "ticket", "workshop"}},
	{Tag: "3.1", Name: "Home", Short: "Home",
		Examples: []string{"living room", "kitchen", "bathroom", "room style", "room lighting", "furniture", "technology", "plants"},
		Cues:     []string{"apartment", "house", "room", "renovation", "remodel", "sofa", "couch", "paint", "decor", "garden", "lamp"}},
	{Tag: "3.2", Name: "Social Context", Short: "Social Context",
		Examples: []string{"alone", "family", "friends", "interactions with strangers"},
		Cues:     []string{"friend", "sister", "brother", "mom", "dad", "mother", "father", "wife", "husband", "partner", "colleague", "family", "kids"}},
	{Tag: "3.3", Name: "Time Context", Short: "Time Context",
		Examples: []string{"time of day", "day of week", "seasonal"},
		Cues:     []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "summer", "winter", "spring", "autumn", "evening", "night"}},
	{Tag: "4.0", Name: "Life Events", Short: "Life Events",
		Examples: []string{"graduations", "academic achievements", "study abroad", "significant academic projects", "job promotions", "starting a business", "births and adoptions", "marriages", "family reunions", "illness or surgeries", "mental health journeys", "purchasing a home", "trips", "movement", "living abroad", "refugee or immigration", "loss of loved ones", "name change", "belief", "milestone"},
		Cues:     []string{"graduated", "promotion", "promoted", "married", "wedding", "baby", "surgery", "moved", "started", "launched", "anniversary", "milestone", "project", "thesis"}},
	{Tag: "5.0", Name: "Belongings", Short: "Belongings",
		Examples: []string{"cars", "bikes", "vehicles", "computer", "phone", "pet", "farm animal", "animal care items", "home", "land", "art", "antiques", "collectible", "rare items", "clothing", "jewelry", "shoes", "bag", "sports gear", "musical instruments", "health related devices", "crafting", "photography"},
		Cues:     []string{"car", "bike", "laptop", "phone", "dog", "cat", "pet", "puppy", "kitten", "camera", "watch", "ring", "jacket", "owns", "own"}},
}

// OntologyText renders the full ontology as the fact miner's prompt shows it:
// one line per category, "tag  Name: example, example".
func OntologyText() string {
	var b strings.Builder
	for i, a := range Ontology {
		if i > 0 && a.Tag[0] != Ontology[i-1].Tag[0] {
			b.WriteByte('\n')
		}
		b.WriteString(a.Tag)
		b.WriteString("  ")
		b.WriteString(a.Name)
		b.WriteString(": ")
		b.WriteString(strings.Join(a.Examples, ", "))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// OntologyShortText renders the compact "tag=Short" list the tag predictor
// shows.
func OntologyShortText() string {
	parts := make([]string, len(Ontology))
	for i, a := range Ontology {
		parts[i] = a.Tag + "=" + a.Short
	}
	return strings.Join(parts, ", ")
}

// validTag reports whether tag is an ontology code; model replies sometimes
// give "2" for "2.0" or "Travel" for "2.5", which normalizeTag repairs first.
func validTag(tag string) bool {
	for _, a := range Ontology {
		if a.Tag == tag {
			return true
		}
	}
	return false
}

// normalizeTag maps a model's tag to an ontology code: "2.4", "2.40",
// "1" → "1.0", a category name → its code; "" when nothing matches.
func normalizeTag(tag string) string {
	t := strings.TrimSpace(tag)
	if t == "" {
		return ""
	}
	if validTag(t) {
		return t
	}
	if !strings.Contains(t, ".") && validTag(t+".0") {
		return t + ".0"
	}
	if i := strings.IndexByte(t, ' '); i > 0 && validTag(t[:i]) {
		return t[:i]
	}
	if len(t) > 3 && validTag(t[:3]) && (t[3] < '0' || t[3] > '9' || strings.Trim(t[3:], "0") == "") {
		return t[:3]
	}
	lt := strings.ToLower(t)
	for _, a := range Ontology {
		if strings.ToLower(a.Name) == lt || strings.ToLower(a.Short) == lt {
			return a.Tag
		}
	}
	return ""
}

// ruleTags scores each ontology category for text by cue and example words
// and returns the best tags, strongest first (at most max). It is the offline
// stand-in for the model's tag choice. A cue counts 2, an example 3, each
// once when found as a whole word or phrase,
// allowing a plural or past-tense suffix (containsWordRef in the tests); the words of the text are looked up in
// an index of the phrases (tagIndex) instead of searching the text for
// each of the ontology's ~400 phrases (TestRuleTagsMatchReference,
// FuzzRuleTags compare with that search).
func ruleTags(text string, max int) []string {
	lt := " " + strings.ToLower(text) + " "
	ix := tagIndex()
	var hit [tagEntryWords]uint64 // entries found, by index
	scores := make([]int, len(Ontology))
	any := false
	mark := func(e int) {
		if hit[e/64]&(1<<(e%64)) == 0 {
			hit[e/64] |= 1 << (e % 64)
			scores[ix.entries[e].attr] += ix.entries[e].weight
			any = true
		}
	}
	if dollar := ix.dollar; len(dollar) > 0 && strings.Contains(lt, "$") {
		for _, e := range dollar {
			mark(e)
		}
	}
	for i := 0; i < len(lt); {
		if !isWordByte(lt[i]) {
			i++
			continue
		}
		j := i
		for j < len(lt) && isWordByte(lt[j]) {
			j++
		}
		for _, c := range ix.byWord[lt[i:j]] {
			if c.whole || phraseAt(lt, i, ix.entries[c.entry].phrase) {
				mark(c.entry)
			}
		}
		i = j
	}
	if !any {
		return nil
	}
	return topTags(scores, max)
}

// topTags is the tags of the at most max attributes with a positive score
// (scores by Ontology index), best first, ties in the ontology's order.
func topTags(scores []int, max int) []string {
	type sc struct {
		tag   string
		score int
		order int
	}
	var best []sc
	for i, a := range Ontology {
		if scores[i] > 0 {
			best = append(best, sc{a.Tag, scores[i], i})
		}
	}
	// Insertion sort: at most 14 entries.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].score > best[j-1].score || (best[j].score == best[j-1].score && best[j].order < best[j-1].order)); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []string
	for _, s := range best {
		if len(out) == max {
			break
		}
		out = append(out, s.tag)
	}
	return out
}

// tagEntry is one cue or example of an ontology category.
type tagEntry struct {
	attr   int
	weight int
	phrase string
}

// tagCandidate is an entry a word of the text may match: whole when the
// word is the entry's one-word phrase (or it with an allowed suffix), else
// the word is the first of the entry's phrase, which phraseAt checks.
type tagCandidate struct {
	entry int
	whole bool
}

const tagEntryWords = 8

// tagIndex is the ontology's cues and examples (entries, a cue weighing 2
// and an example 3) and their index by the words of a text that can match
// them (byWord), built on first use: most programs never tag by rule.
// A phrase is found only where it starts after a non-word byte, so at the
// start of a run of word bytes (the padding makes every run one); a
// one-word phrase then is that whole run, or the run is it with one of
// the allowed suffixes; a longer phrase's first word is the whole run (its
// next byte, not a word byte, must follow). "$", the one phrase that
// starts with no word byte, is found anywhere (dollar).
var tagIndex = sync.OnceValue(func() *tagIx {
	ix := &tagIx{byWord: map[string][]tagCandidate{}}
	for i, a := range Ontology {
		for _, c := range a.Cues {
			ix.entries = append(ix.entries, tagEntry{i, 2, c})
		}
		for _, e := range a.Examples {
			ix.entries = append(ix.entries, tagEntry{i, 3, e})
		}
	}
	if len(ix.entries) > 64*tagEntryWords {
		panic("arbormem: the ontology has more cues and examples than ruleTags' bit set holds")
	}
	for e, te := range ix.entries {
		w := te.phrase
		if w == "$" {
			ix.dollar = append(ix.dollar, e)
			continue
		}
		k := 0
		for k < len(w) && isWordByte(w[k]) {
			k++
		}
		if k == 0 || w != strings.ToLower(w) {
			panic(fmt.Sprintf("arbormem: ontology phrase %q must be lower case and start with a word byte", w))
		}
		if k < len(w) {
			ix.byWord[w[:k]] = append(ix.byWord[w[:k]], tagCandidate{entry: e})
			continue
		}
		for _, suf := range wordSuffixes {
			ix.byWord[w+suf] = append(ix.byWord[w+suf], tagCandidate{entry: e, whole: true})
		}
	}
	return ix
})

// tagIx is what tagIndex builds.
type tagIx struct {
	entries []tagEntry
	byWord  map[string][]tagCandidate
	dollar  []int
}

// wordSuffixes are the endings allowed after a phrase ("" for
// none).
var wordSuffixes = []string{"", "s", "es", "ed", "d", "ing"}

// phraseAt reports whether padded holds the phrase w at i, followed by a
// non-word byte or one of wordSuffixes and then one (the byte
// before i is not a word byte).
func phraseAt(padded string, i int, w string) bool {
	if !strings.HasPrefix(padded[i:], w) {
		return false
	}
	end := i + len(w)
	for _, suf := range wordSuffixes {
		if strings.HasPrefix(padded[end:], suf) && (end+len(suf) >= len(padded) || !isWordByte(padded[end+len(suf)])) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}
