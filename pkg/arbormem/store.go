package arbormem

// Paper §3.1, the reusable evidence store M_t: atomic facts with their
// revision links, and the structured records (artifacts, events, states)
// of appendix A, with the lines they are shown as in the bundle.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/text"
)

// Fact is one atomic fact of the evidence store M_t.
type Fact struct {
	ID       int      `json:"id"`
	Text     string   `json:"fact"`
	Tag      string   `json:"attribute_tag"`
	Entities []string `json:"entities,omitempty"`
	// Topic is the trajectory topic shown beside a rule-extracted fact that
	// does not name it (empty for model-extracted facts).
	Topic string `json:"topic,omitempty"`
	Provenance
	// SupersededBy is the ID of the fact that replaced this one, -1 if none.
	// Superseded facts are kept and traceable but deprioritised (appendix A,
	// "Memory Commit").
	SupersededBy int   `json:"superseded_by"`
	Supersedes   []int `json:"supersedes,omitempty"`
	// Vector embeds the fact jointly with its source interaction (fact key
	// expansion, Table "Reference implementation settings"), until it is
	// indexed (factVec then holds the only copy).
	Vector []float32 `json:"-"`

	terms       termList
	entityTerms termList
	tokens      int
}

// recordEntities are the terms a record is matched on by entity.
func (s *Store) recordEntities(r recordRef) []string {
	var ents []string
	switch r.kind {
	case kindArtifact:
		ents = s.Artifacts[r.idx].Entities
	case kindEvent:
		ents = s.Events[r.idx].Entities
	default:
		ents = s.States[r.idx].Entities
	}
	return rules.Terms(strings.Join(ents, " ; "))
}

// Store is the reusable evidence store M_t (§3.1).
type Store struct {
	Facts     []*Fact     `json:"facts"`
	Artifacts []*Artifact `json:"artifacts"`
	Events    []*Event    `json:"events"`
	States    []*State    `json:"states"`

	// stateByKey lists the current states of each key: one after a
	// revision superseded the others, several when the revision check let
	// values coexist (appendix A, "Memory Commit").
	stateByKey map[string][]int
	// factTerms indexes non-superseded facts by tag and informative term,
	// for finding same-slot collision candidates without a scan.
	factTerms map[string][]int32
	// factByTerm indexes all facts by analyzed term (entity-based route).
	// Both hold fact IDs as int32: an episode's largest memory after its
	// vectors, at half the size of int.
	factByTerm map[string][]int32
	// records lists structured records in the lexical record index's id order.
	records []recordRef
}

// recordKind says which list a recordRef points into.
type recordKind uint8

const (
	kindArtifact recordKind = iota
	kindEvent
	kindState
)

type recordRef struct {
	kind recordKind
	idx  int
}

func newStore() *Store {
	return &Store{stateByKey: map[string][]int{}, factTerms: map[string][]int32{}, factByTerm: map[string][]int32{}}
}

// Current reports whether the fact is still current.
func (f *Fact) Current() bool { return f.SupersededBy < 0 }

// factLine renders a fact for ### DATA CONTEXT; withTopic adds the
// trajectory topic of a rule-extracted fact.
func factLine(f *Fact, superseded string, withTopic bool) string {
	s := "- [" + dialog.FormatTime(f.Time) + "] " + text.OneLine(f.Text)
	if withTopic && f.Topic != "" {
		s += " (re: " + f.Topic + ")"
	}
	if superseded != "" {
		s += " (superseded by: " + superseded + ")"
	}
	return s
}

func quoteField(k, v string) string {
	if v == "" {
		return ""
	}
	return k + "=" + strconv.Quote(v)
}

func joinFields(fs ...string) string {
	var out []string
	for _, f := range fs {
		if f != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// artifactLine renders an artifact for [ArtifactEvidence]; exact marks the
// item that matches the asked topic and ordinal.
func artifactLine(a *Artifact, exact bool) string {
	ord := ""
	if a.Ordinal > 0 {
		ord = "ordinal=" + strconv.Itoa(a.Ordinal)
	}
	em := ""
	if exact {
		em = "exact_match=true"
	}
	return "- " + joinFields(quoteField("topic", a.Topic), ord, quoteField("item_text", a.Item), "type="+a.Type, em,
		quoteField("evidence", a.Evidence), "time="+dialog.FormatTime(a.Time), "source="+a.Source)
}

// eventLine renders an event for [EventEvidence].
func eventLine(e *Event) string {
	q := ""
	if e.Quantity != nil {
		q = "quantity=" + strconv.FormatFloat(*e.Quantity, 'f', -1, 64)
	}
	neg := ""
	if e.Negated {
		neg = "negated=true"
	}
	date := e.NormalizedDate
	if date == "" {
		date = dialog.FormatTime(e.Time)
	}
	return "- " + joinFields("date="+date, quoteField("action", e.CanonicalAction), quoteField("object", e.Object), quoteField("value", e.Value),
		q, quoteField("unit", e.Unit), quoteField("date_text", e.DateText), neg, quoteField("evidence", e.Evidence), "source="+e.Source)
}

// stateLine renders a state with its revision history old → new for
// [StateEvidence] (or [PreferenceEvidence]).
func (s *Store) stateLine(i int) string {
	st := s.States[i]
	var chain []string
	for j := i; j >= 0 && len(chain) < 4; j = s.States[j].Prev {
		chain = append(chain, fmt.Sprintf("%q (%s)", s.States[j].Value, dialog.FormatTime(s.States[j].Time)))
	}
	for a, b := 0, len(chain)-1; a < b; a, b = a+1, b-1 {
		chain[a], chain[b] = chain[b], chain[a]
	}
	status := "current"
	if st.Next >= 0 {
		status = "superseded"
	}
	return "- " + st.Key + ": " + strings.Join(chain, " -> ") + " [" + status + "]" + func() string {
		if st.Evidence != "" {
			return " evidence=" + strconv.Quote(st.Evidence)
		}
		return ""
	}()
}

func artifactText(a *Artifact) string {
	return strings.Join([]string{a.Topic, a.Item, strings.Join(a.Entities, " "), a.Evidence, a.Type}, " ")
}

func eventText(e *Event) string {
	return strings.Join([]string{e.Type, e.CanonicalAction, e.Object, e.CanonicalObject, e.Value, e.Unit, e.DateText, strings.Join(e.Entities, " "), e.Evidence}, " ")
}

func stateText(st *State) string {
	return strings.Join([]string{strings.ReplaceAll(st.Key, "_", " "), st.Value, strings.Join(st.Entities, " "), st.Evidence}, " ")
}

// isPreferenceKey reports whether a state key is a durable preference
// ([PreferenceEvidence]) rather than a mutable fact about the user.
func isPreferenceKey(k string) bool {
	return strings.Contains(k, "favorite_") || strings.Contains(k, "favourite_") || strings.Contains(k, "preferred_") ||
		strings.HasSuffix(k, "dietary_pref") || strings.HasSuffix(k, "_preference") || strings.Contains(k, "likes_")
}
