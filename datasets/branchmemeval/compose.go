package branchmemeval

import (
	"fmt"
	"sort"
)

// The session families of appendix B.1, Table "Composition", panel (b).
const (
	FamilyBackjump = "backjump"
	FamilyArtifact = "artifact"
	FamilyTwin     = "twin"
	FamilyBridge   = "bridge"
)

// The diagnostic dimensions of §5 ("Scope and dimensions").
const (
	DimResume   = "B1" // backjump: resume an earlier branch
	DimLatest   = "B2" // state update: the latest value in the right branch
	DimArtifact = "B3" // an assistant-generated list item by ordinal
	DimBridge   = "B4" // combine evidence from two branches via a hidden link
	DimTwin     = "B5" // tell same-schema twin branches apart by their anchor
)

// Dimensions lists the dimensions in order.
var Dimensions = []string{DimResume, DimLatest, DimArtifact, DimBridge, DimTwin}

// Families lists the families in the paper's order.
var Families = []string{FamilyBackjump, FamilyArtifact, FamilyTwin, FamilyBridge}

// familyDims are the dimensions each family's session structure supports.
var familyDims = map[string][]string{
	FamilyBackjump: {DimResume, DimLatest},
	FamilyArtifact: {DimArtifact},
	FamilyTwin:     {DimTwin, DimResume},
	FamilyBridge:   {DimBridge},
}

// Composition is what the planner is asked to build.
type Composition struct {
	Families []FamilySpec `json:"families"`
	// Interactions is the total number of non-question interactions.
	Interactions int `json:"interactions"`
	// MinTurns and MaxTurns bound each session's turns, questions included.
	MinTurns int `json:"min_turns"`
	MaxTurns int `json:"max_turns"`
}

// FamilySpec is one family's share.
type FamilySpec struct {
	Family    string     `json:"family"`
	Sessions  int        `json:"sessions"`
	Questions []DimCount `json:"questions"`
}

// DimCount is a number of questions of one dimension.
type DimCount struct {
	Dimension string `json:"dimension"`
	Count     int    `json:"count"`
}

// PaperComposition is appendix B.1: 33 sessions, 100 questions and 1,442
// non-question interactions, 42–52 turns per session (mean 46.73, i.e.
// 1,542 turns in all), families as in the Table "Composition of
// BranchMemEval" panel (b) and dimensions as in panel (a) (B1 = 16 in
// backjump sessions + 10 in twin sessions = 26).
func PaperComposition() Composition {
	return Composition{
		Families: []FamilySpec{
			{Family: FamilyBackjump, Sessions: 8, Questions: []DimCount{{DimResume, 16}, {DimLatest, 16}}},
			{Family: FamilyArtifact, Sessions: 8, Questions: []DimCount{{DimArtifact, 24}}},
			{Family: FamilyTwin, Sessions: 10, Questions: []DimCount{{DimTwin, 20}, {DimResume, 10}}},
			{Family: FamilyBridge, Sessions: 7, Questions: []DimCount{{DimBridge, 14}}},
		},
		Interactions: 1442,
		MinTurns:     42,
		MaxTurns:     52,
	}
}

// Sessions is the total number of sessions.
func (c Composition) Sessions() int {
	n := 0
	for _, f := range c.Families {
		n += f.Sessions
	}
	return n
}

// Questions is the total number of questions.
func (c Composition) Questions() int {
	n := 0
	for _, f := range c.Families {
		for _, d := range f.Questions {
			n += d.Count
		}
	}
	return n
}

// Check reports a composition the planner cannot build.
func (c Composition) Check() error {
	if len(c.Families) == 0 {
		return fmt.Errorf("composition: no families")
	}
	if c.MinTurns < 12 || c.MaxTurns < c.MinTurns {
		return fmt.Errorf("composition: turns per session must satisfy 12 <= min (%d) <= max (%d)", c.MinTurns, c.MaxTurns)
	}
	seen := map[string]bool{}
	for i, f := range c.Families {
		dims, ok := familyDims[f.Family]
		if !ok {
			return fmt.Errorf("composition: families[%d]: unknown family %q (known: %v)", i, f.Family, Families)
		}
		if seen[f.Family] {
			return fmt.Errorf("composition: families[%d]: family %q listed twice", i, f.Family)
		}
		seen[f.Family] = true
		if f.Sessions < 0 {
			return fmt.Errorf("composition: family %s: negative sessions", f.Family)
		}
		total := 0
		for _, d := range f.Questions {
			if !contains(dims, d.Dimension) {
				return fmt.Errorf("composition: family %s cannot host dimension %q (it hosts %v)", f.Family, d.Dimension, dims)
			}
			if d.Count < 0 {
				return fmt.Errorf("composition: family %s: negative count for %s", f.Family, d.Dimension)
			}
			total += d.Count
		}
		if f.Sessions == 0 && total > 0 {
			return fmt.Errorf("composition: family %s has questions but no sessions", f.Family)
		}
		if f.Sessions > 0 && (total+f.Sessions-1)/f.Sessions > 6 {
			return fmt.Errorf("composition: family %s: more than 6 questions per session", f.Family)
		}
	}
	turns := c.Interactions + c.Questions()
	if n := c.Sessions(); turns < n*c.MinTurns || turns > n*c.MaxTurns {
		return fmt.Errorf("composition: %d turns cannot be split over %d sessions of %d–%d turns", turns, n, c.MinTurns, c.MaxTurns)
	}
	return nil
}

// sessionDims deals a family's questions out to its sessions as evenly as
// possible: session k gets the dimensions at positions k, k+S, k+2S, ... of
// the family's question list, so every session of the paper's families
// gets the same mix (backjump 2×B1 + 2×B2, twin 2×B5 + 1×B1).
func sessionDims(f FamilySpec) [][]string {
	out := make([][]string, f.Sessions)
	if f.Sessions == 0 {
		return out
	}
	// Interleave dimensions so that an uneven split still mixes them.
	var all []string
	for _, d := range f.Questions {
		for i := 0; i < d.Count; i++ {
			all = append(all, d.Dimension)
		}
	}
	for i, d := range all {
		out[i%f.Sessions] = append(out[i%f.Sessions], d)
	}
	for _, ds := range out {
		sort.Strings(ds)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
