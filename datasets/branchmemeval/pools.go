package branchmemeval

import (
	"fmt"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/text"
)

// Value pools. Every value a session uses is drawn through a registry that
// refuses a value whose normalised form contains, or is contained in, one
// already drawn in that session (at token boundaries, the scorer's own
// rule), so a gold answer can never be matched by accident through another
// value, and values repeat across branches only where the plan says so.

var anchorNames = []string{
	"Sam", "Alex", "Maya", "Leo", "Nora", "Omar", "Ivy", "Theo", "Ruth", "Ada",
	"Ben", "Clara", "Felix", "Hana", "Jonas", "Kira", "Luca", "Mina", "Nico", "Olive",
	"Priya", "Quinn", "Rosa", "Tariq", "Uma", "Vera", "Wes", "Yara", "Zane", "Elise",
	"Dev", "Greta", "Hugo", "Iris", "Jade", "Kofi", "Lena", "Milo", "Nadia", "Otto",
}

var relations = []string{
	"my brother", "my sister", "my friend", "my colleague", "my cousin", "my neighbor",
	"my roommate", "my old classmate", "my partner's sister", "a close friend,",
}

var firstNames = []string{
	"Dana", "Marcus", "Elena", "Victor", "Helen", "Rafael", "Sofia", "Daniel", "Amara", "Gideon",
	"Lucia", "Martin", "Ingrid", "Patrick", "Selma", "Tobias", "Carmen", "Walter", "Beatrice", "Arjun",
	"Naomi", "Emil", "Frances", "Hector", "Irene", "Julian", "Keiko", "Lorenzo", "Mariam", "Nathan",
	"Oksana", "Pablo", "Rebecca", "Stefan", "Teresa", "Ulrich", "Valerie", "William", "Xavier", "Yvonne",
	"Agnes", "Bruno", "Cecile", "Dmitri", "Esther", "Farid", "Gloria", "Henrik", "Isabel", "Jorge",
}

var lastNames = []string{
	"Whitfield", "Okafor", "Lindqvist", "Moreau", "Castellano", "Nakamura", "Brennan", "Petrova", "Adeyemi", "Hartmann",
	"Fontaine", "Kowalski", "Delgado", "Sorensen", "Abernathy", "Vasquez", "Takahashi", "Mbeki", "Gallagher", "Rinaldi",
	"Holloway", "Szabo", "Achterberg", "Quintero", "Lachance", "Oyelaran", "Bergstrom", "Marchetti", "Novak", "Ferreira",
	"Kaplan", "Iwasaki", "Dufresne", "Osei", "Halvorsen", "Crowley", "Esposito", "Yilmaz", "Pemberton", "Varga",
}

var cities = []string{
	"Lisbon", "Porto", "Seville", "Valencia", "Lyon", "Bordeaux", "Munich", "Hamburg", "Vienna", "Prague",
	"Krakow", "Budapest", "Ljubljana", "Zagreb", "Copenhagen", "Gothenburg", "Oslo", "Bergen", "Edinburgh", "Dublin",
	"Galway", "Bristol", "Antwerp", "Utrecht", "Basel", "Turin", "Bologna", "Naples", "Athens", "Thessaloniki",
	"Denver", "Boulder", "Portland", "Seattle", "Austin", "Chicago", "Montreal", "Quebec City", "Halifax", "Vancouver",
	"Kyoto", "Osaka", "Taipei", "Melbourne", "Wellington", "Santiago", "Cartagena", "Oaxaca", "Marrakesh", "Tbilisi",
}

var rooms = []string{"kitchen", "bathroom", "basement", "attic", "living room", "home office", "laundry room", "guest bedroom", "back porch", "hallway"}

var roles = []string{
	"data analyst", "product designer", "backend engineer", "project manager", "UX researcher",
	"operations lead", "marketing manager", "science teacher", "nurse practitioner", "technical writer",
}

var paperTopics = []string{
	"sparse attention", "dialogue memory", "graph clustering", "protein folding benchmarks", "soil carbon models",
	"urban heat islands", "federated learning", "speech diarization", "coral reef imaging", "causal discovery",
}

var subjects = []string{
	"statistics", "organic chemistry", "conversational Spanish", "linear algebra", "art history",
	"macroeconomics", "Python programming", "music theory", "Japanese", "microbiology",
}

var raceNames = []string{
	"Riverside Half Marathon", "Lakefront 10K", "Harbor Bridge Run", "Autumn Trail 25K", "City Hills Half",
	"Midsummer Night 10K", "Valley Relay", "Coastal Sprint Triathlon", "Forest Loop 15K", "Old Town Marathon",
}

var occasions = []string{
	"60th birthday", "30th birthday", "retirement party", "graduation party", "housewarming",
	"40th anniversary party", "engagement party", "farewell party", "baby shower", "surprise birthday",
}

var carKinds = []string{"used hatchback", "small electric car", "family SUV", "compact wagon", "plug-in hybrid", "pickup truck"}

var hotelA = []string{"Maple", "Harbor", "Linden", "Alder", "Cobalt", "Juniper", "Marlow", "Saltmarsh", "Old Mill", "Foxglove", "Wren", "Aster", "Bellhaven", "Calder", "Dunmore", "Larkspur"}
var hotelB = []string{"Inn", "Lodge", "House Hotel", "Suites", "Guesthouse", "Residences", "Boutique Hotel", "Court Hotel"}

var venueA = []string{"Rosewood", "Ashgrove", "Millbrook", "Stonegate", "Thornfield", "Willowmere", "Oakhurst", "Brightwater", "Fernhill", "Glenmoor", "Heathcote", "Kingsley", "Lowther", "Quarry", "Redcliffe", "Silverbank"}
var venueB = []string{"Barn", "Hall", "Loft", "Pavilion", "Gardens", "Conservatory", "Boathouse", "Chapel", "Terrace"}

var companies = []string{
	"Northwind", "Brightpath", "Ardent Labs", "Corvid Systems", "Halcyon Health", "Meridian Analytics", "Quillstone",
	"Tidewater Energy", "Lumen Works", "Kestrel Logistics", "Pinecrest Media", "Orbital Foods", "Sable Robotics",
	"Vantage Bio", "Greyhaven", "Copperline", "Atlas Freight", "Bluefin Software", "Evergreen Learning", "Fathom Data",
}

var crewA = []string{"Summit", "Bluebird", "Ironwood", "Keystone", "Riverside", "Blackstone", "Clearwater", "Goldcrest", "Hillside", "Evenkeel", "Trueline", "Northgate"}
var crewB = []string{"Flooring", "Painters", "Electric", "Plumbing", "Carpentry", "Cabinetry", "Glass", "Roofing", "Tile Works", "Plastering"}
var moveCrewB = []string{"Movers", "Cleaners", "Hauling", "Packers", "Storage", "Piano Movers", "Van Lines"}

var tableNames = []string{"Birch", "Willow", "Cedar", "Juniper", "Magnolia", "Hawthorn", "Rowan", "Elder", "Sycamore", "Laurel", "Poplar", "Aspen", "Hazel", "Chestnut"}

var confA = []string{"Pacific", "Northern", "Alpine", "Atlantic", "Baltic", "Midwest", "Coastal", "Highland", "Meridian", "Prairie"}
var confB = []string{"Symposium", "Workshop", "Forum", "Summit", "Colloquium"}
var confC = []string{"on Learning Systems", "on Data Science", "on Applied Ecology", "on Computational Biology", "on Language Technology", "on Urban Studies", "on Robotics", "on Information Retrieval"}

var gyms = []string{"Ironside Gym", "Pulse Fitness", "Northside Athletic Club", "Forge Studio", "Riverbend Rec Center", "Peak Performance Lab", "Cedar Street Boxing", "Second Wind Fitness"}

var dealers = []string{"Westgate Motors", "Hillcrest Auto", "Parkway Cars", "Summit Valley Motors", "Lakeshore Auto Group", "Crossroads Car Center", "Bayview Motors", "Redwood Auto"}

var movers = []string{"Swift Relocation", "Two Oaks Moving", "Carefree Movers", "Lighthouse Moving Co", "Steady Hands Movers", "Bluewater Relocation", "Homeward Movers", "Packwell Moving"}

var caterers = []string{"Saffron Table Catering", "Hearth and Vine", "Copper Pot Kitchen", "Greenleaf Catering", "Little Fig Catering", "Salt and Ember", "Bramble Kitchen", "Olive Branch Catering"}

var neighborhoods = []string{
	"Elm Heights", "Harbor Point", "Mill District", "Old Quarry", "Canal Row", "Larch Park", "Fairview Hill",
	"Riverside Flats", "Station Square", "Greenwood Terrace", "Orchard Lane", "Bellweather Commons", "Southgate", "Kingfisher Bay",
}

var advisors = []string{"Professor", "Dr."}

// registry draws values that stay distinct within a session.
type registry struct {
	used []string // normalised
}

// ok reports whether v can be used alongside everything drawn so far.
func (g *registry) ok(v string) bool {
	n := text.NormalizeAnswer(v)
	if n == "" {
		return false
	}
	for _, u := range g.used {
		if text.ContainsAnswer(n, u) || text.ContainsAnswer(u, n) {
			return false
		}
	}
	return true
}

func (g *registry) add(v string) { g.used = append(g.used, text.NormalizeAnswer(v)) }

// draw calls gen until it yields a fresh value; pools are far larger than a
// session needs, so the bound is only a guard against a content bug.
func (g *registry) draw(r *rng, gen func(*rng) string) string {
	for i := 0; i < 500; i++ {
		v := gen(r)
		if g.ok(v) {
			g.add(v)
			return v
		}
	}
	panic("branchmemeval: value pool exhausted")
}

// session-level date helpers: planned dates fall after the session starts.
type dateGen struct{ start time.Time }

func (d dateGen) gen(r *rng) string {
	t := d.start.AddDate(0, 0, r.between(6, 150))
	return t.Format("January 2")
}

func poolGen(pool string, dates dateGen) func(*rng) string {
	switch pool {
	case "person":
		return func(r *rng) string { return pick(r, firstNames) + " " + pick(r, lastNames) }
	case "advisor":
		return func(r *rng) string { return pick(r, advisors) + " " + pick(r, lastNames) }
	case "city":
		return func(r *rng) string { return pick(r, cities) }
	case "hotel":
		return func(r *rng) string { return pick(r, hotelA) + " " + pick(r, hotelB) }
	case "venue":
		return func(r *rng) string { return pick(r, venueA) + " " + pick(r, venueB) }
	case "company":
		return func(r *rng) string { return pick(r, companies) }
	case "crew":
		return func(r *rng) string { return pick(r, crewA) + " " + pick(r, crewB) }
	case "movecrew":
		return func(r *rng) string { return pick(r, crewA) + " " + pick(r, moveCrewB) }
	case "table":
		return func(r *rng) string { return pick(r, tableNames) + " table" }
	case "conference":
		return func(r *rng) string { return pick(r, confA) + " " + pick(r, confB) + " " + pick(r, confC) }
	case "gym":
		return func(r *rng) string { return pick(r, gyms) }
	case "dealer":
		return func(r *rng) string { return pick(r, dealers) }
	case "mover":
		return func(r *rng) string { return pick(r, movers) }
	case "caterer":
		return func(r *rng) string { return pick(r, caterers) }
	case "neighborhood":
		return func(r *rng) string { return pick(r, neighborhoods) }
	case "date":
		return dates.gen
	case "time":
		return func(r *rng) string {
			h := r.between(7, 20)
			m := pick(r, []int{0, 15, 30, 45})
			ampm := "am"
			if h >= 12 {
				ampm = "pm"
			}
			if h > 12 {
				h -= 12
			}
			return fmt.Sprintf("%d:%02d %s", h, m, ampm)
		}
	case "ref":
		return func(r *rng) string {
			const letters = "ABCDEFGHJKLMNPRSTVWXZ"
			return fmt.Sprintf("%c%c%d", letters[r.IntN(len(letters))], letters[r.IntN(len(letters))], r.between(1000, 9999)*10+r.IntN(10))
		}
	case "room":
		return func(r *rng) string { return pick(r, rooms) }
	case "role":
		return func(r *rng) string { return pick(r, roles) }
	case "topic":
		return func(r *rng) string { return pick(r, paperTopics) }
	case "subject":
		return func(r *rng) string { return pick(r, subjects) }
	case "race":
		return func(r *rng) string { return pick(r, raceNames) }
	case "occasion":
		return func(r *rng) string { return pick(r, occasions) }
	case "carkind":
		return func(r *rng) string { return pick(r, carKinds) }
	case "month":
		return func(r *rng) string {
			return pick(r, []string{"early spring", "late spring", "the summer", "early autumn", "late autumn", "the winter holidays"})
		}
	}
	if strings.HasPrefix(pool, "amount:") {
		var lo, hi, step int
		if _, err := fmt.Sscanf(pool, "amount:%d:%d:%d", &lo, &hi, &step); err != nil || step <= 0 || hi < lo {
			panic("branchmemeval: bad amount pool " + pool)
		}
		return func(r *rng) string { return money(lo + step*r.IntN((hi-lo)/step+1)) }
	}
	panic("branchmemeval: unknown pool " + pool)
}

// money formats whole dollars with thousands separators ("$12,500").
func money(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return "$" + b.String()
}
