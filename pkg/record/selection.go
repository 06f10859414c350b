package record

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Selection is what one command that wrote a run folder asked for: the
// episodes and questions it selected (after --episodes, --subset, --limit,
// --shard and --categories) and the systems, budgets and variants it ran.
// A folder written by several selections (say --limit 4, then --limit 2)
// holds the union of their samples; a table printed by a command covers its
// own selection only.
type Selection struct {
	Command []string  `json:"command"`
	Started time.Time `json:"started"`
	// Available is the number of episodes the dataset offered before any
	// selection flag.
	Available int               `json:"available_episodes"`
	Episodes  []SelectedEpisode `json:"episodes"`
	Systems   []string          `json:"systems"`
	Budgets   []int             `json:"budgets"`
	Variants  []string          `json:"variants,omitempty"`
}

// SelectedEpisode is one selected episode and its selected questions.
type SelectedEpisode struct {
	ID        string   `json:"id"`
	Questions []string `json:"questions"`
}

// Questions is the number of selected questions.
func (s *Selection) Questions() int {
	n := 0
	for _, e := range s.Episodes {
		n += len(e.Questions)
	}
	return n
}

// Same reports whether two selections select the same samples.
func (s *Selection) Same(o *Selection) bool {
	return s.signature() == o.signature()
}

func (s *Selection) signature() string {
	var b strings.Builder
	for _, e := range s.Episodes {
		b.WriteString(e.ID)
		b.WriteByte(0x1e)
		for _, q := range e.Questions {
			b.WriteString(q)
			b.WriteByte(0x1f)
		}
		b.WriteByte(0x1d)
	}
	b.WriteString("|" + strings.Join(s.Systems, ",") + "|" + strings.Join(s.Variants, ",") + "|")
	for _, x := range s.Budgets {
		b.WriteString(strconv.Itoa(x) + ",")
	}
	return b.String()
}

// Matcher answers whether a sample or an episode record lies in a selection.
type Matcher struct {
	questions map[string]bool // episode \x1f question
	episodes  map[string]bool
	systems   map[string]bool
	variants  map[string]bool
	budgets   map[int]bool
}

// Matcher builds the selection's membership test. An empty Variants list
// means the reference configuration only.
func (s *Selection) Matcher() *Matcher {
	m := &Matcher{questions: map[string]bool{}, episodes: map[string]bool{}, systems: map[string]bool{}, variants: map[string]bool{}, budgets: map[int]bool{}}
	for _, e := range s.Episodes {
		m.episodes[e.ID] = true
		for _, q := range e.Questions {
			m.questions[e.ID+"\x1f"+q] = true
		}
	}
	for _, x := range s.Systems {
		m.systems[x] = true
	}
	vs := s.Variants
	if len(vs) == 0 {
		vs = []string{""}
	}
	for _, v := range vs {
		m.variants[v] = true
	}
	for _, b := range s.Budgets {
		m.budgets[b] = true
	}
	return m
}

// Sample reports whether s lies in the selection.
func (m *Matcher) Sample(s Sample) bool {
	return m.questions[s.Episode+"\x1f"+s.Question] && m.systems[s.System] && m.variants[s.Variant] && m.budgets[s.Budget]
}

// Episode reports whether e lies in the selection. An episode record's
// variant is the construction-time variant, which may differ from the
// answered ones, so only its episode and system are checked.
func (m *Matcher) Episode(e EpisodeStat) bool {
	return m.episodes[e.Episode] && m.systems[e.System]
}

// Filter keeps the samples and episode records that lie in sel.
func Filter(sel *Selection, samples []Sample, episodes []EpisodeStat) ([]Sample, []EpisodeStat) {
	m := sel.Matcher()
	return slices.DeleteFunc(slices.Clone(samples), func(s Sample) bool { return !m.Sample(s) }),
		slices.DeleteFunc(slices.Clone(episodes), func(e EpisodeStat) bool { return !m.Episode(e) })
}

// AddSelection records sel as the latest selection of m: an earlier
// selection of the same samples is moved to the end with its command
// replaced, so that Selections lists each distinct selection once, oldest
// first.
func (m *Manifest) AddSelection(sel Selection) {
	m.Selections = slices.DeleteFunc(m.Selections, func(o Selection) bool { return o.Same(&sel) })
	m.Selections = append(m.Selections, sel)
}

// Latest is the latest selection, nil when the manifest records none
// (runs made before selections were recorded, merged runs).
func (m *Manifest) Latest() *Selection {
	if len(m.Selections) == 0 {
		return nil
	}
	return &m.Selections[len(m.Selections)-1]
}
