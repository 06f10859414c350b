package ops

import (
	"strings"
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

// ValidTag reports whether tag is an ontology code; model replies sometimes
// give "2" for "2.0" or "Travel" for "2.5", which NormalizeTag repairs first.
func ValidTag(tag string) bool {
	for _, a := range Ontology {
		if a.Tag == tag {
			return true
		}
	}
	return false
}

// NormalizeTag maps a model's tag to an ontology code: "2.4", "2.40",
// "1" → "1.0", a category name → its code; "" when nothing matches.
func NormalizeTag(tag string) string {
	t := strings.TrimSpace(tag)
	if t == "" {
		return ""
	}
	if ValidTag(t) {
		return t
	}
	if !strings.Contains(t, ".") && ValidTag(t+".0") {
		return t + ".0"
	}
	if i := strings.IndexByte(t, ' '); i > 0 && ValidTag(t[:i]) {
		return t[:i]
	}
	if len(t) > 3 && ValidTag(t[:3]) && (t[3] < '0' || t[3] > '9' || strings.Trim(t[3:], "0") == "") {
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
