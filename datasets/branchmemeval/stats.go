package branchmemeval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/arbor-eval/arbor/pkg/tokens"
)

// Stats is the composition of a set, as in appendix B.1's Table
// "Composition of BranchMemEval", plus turn and token counts per session.
type Stats struct {
	Sessions     int `json:"sessions"`
	Questions    int `json:"questions"`
	Interactions int `json:"interactions"` // non-question turns
	Turns        int `json:"turns"`        // question turns included
	MinTurns     int `json:"min_turns"`
	MaxTurns     int `json:"max_turns"`
	// MeanTurns is Turns / Sessions (the paper's 46.73).
	MeanTurns  float64        `json:"mean_turns"`
	Families   []FamilyStats  `json:"families"`
	Dimensions []DimCount     `json:"dimensions"`
	PerSession []SessionStats `json:"per_session"`
	// Tokens per session (user and assistant text of every turn), counted
	// by TokenCounter.
	MinTokens    int     `json:"min_tokens"`
	MaxTokens    int     `json:"max_tokens"`
	MeanTokens   float64 `json:"mean_tokens"`
	TokenCounter string  `json:"token_counter"`
	// B1Questions counts B1 questions and B1Returns those that are
	// themselves the return to their branch: right after another branch's
	// turn, with no resume turn of their own branch before them.
	B1Questions int `json:"b1_questions"`
	B1Returns   int `json:"b1_returns"`
}

// FamilyStats is one row of panel (b).
type FamilyStats struct {
	Family    string     `json:"family"`
	Sessions  int        `json:"sessions"`
	Questions int        `json:"questions"`
	Dims      []DimCount `json:"dimensions"`
}

// SessionStats describes one session.
type SessionStats struct {
	ID        string `json:"id"`
	Family    string `json:"family"`
	Branches  int    `json:"branches"`
	Turns     int    `json:"turns"`
	Questions int    `json:"questions"`
	Tokens    int    `json:"tokens"`
}

// ComputeStats counts f. counter measures tokens (tokens.Default() for the
// paper's Qwen3 tokenizer; nil skips token counts); counterName labels it
// in the output.
func ComputeStats(f *File, counter tokens.Counter, counterName string) Stats {
	st := Stats{TokenCounter: counterName, MinTurns: -1, MinTokens: -1}
	fam := map[string]*FamilyStats{}
	dims := map[string]int{}
	for si := range f.Sessions {
		s := &f.Sessions[si]
		ss := SessionStats{ID: s.ID, Turns: len(s.Turns)}
		if n := f.Notes(s.ID); n != nil {
			ss.Family, ss.Branches = n.Family, len(n.Branches)
			fs := fam[n.Family]
			if fs == nil {
				fs = &FamilyStats{Family: n.Family}
				fam[n.Family] = fs
			}
			fs.Sessions++
			for _, q := range n.Questions {
				fs.Questions++
				dims[q.Dimension]++
				fs.Dims = addDim(fs.Dims, q.Dimension)
				if q.Dimension == DimResume {
					st.B1Questions++
					if isReturn(n, q) {
						st.B1Returns++
					}
				}
			}
		}
		for _, t := range s.Turns {
			if t.Question != nil {
				ss.Questions++
			} else {
				st.Interactions++
			}
			if counter != nil {
				ss.Tokens += counter.Count(t.User) + counter.Count(t.Assistant)
			}
		}
		st.Turns += ss.Turns
		st.Questions += ss.Questions
		if st.MinTurns < 0 || ss.Turns < st.MinTurns {
			st.MinTurns = ss.Turns
		}
		st.MaxTurns = max(st.MaxTurns, ss.Turns)
		if st.MinTokens < 0 || ss.Tokens < st.MinTokens {
			st.MinTokens = ss.Tokens
		}
		st.MaxTokens = max(st.MaxTokens, ss.Tokens)
		st.MeanTokens += float64(ss.Tokens)
		st.PerSession = append(st.PerSession, ss)
	}
	st.Sessions = len(f.Sessions)
	if st.Sessions == 0 {
		st.MinTurns, st.MinTokens = 0, 0
	} else {
		st.MeanTurns = float64(st.Turns) / float64(st.Sessions)
		st.MeanTokens /= float64(st.Sessions)
	}
	// Families in the paper's order, then any others by first appearance.
	for _, name := range Families {
		if fs := fam[name]; fs != nil {
			sortDims(fs.Dims)
			st.Families = append(st.Families, *fs)
		}
	}
	for _, d := range Dimensions {
		if dims[d] > 0 {
			st.Dimensions = append(st.Dimensions, DimCount{d, dims[d]})
		}
	}
	return st
}

// isReturn reports whether question q directly follows a turn of another
// branch, so that the question itself is the return to its branch.
func isReturn(n *SessionNotes, q QuestionNote) bool {
	for i, t := range n.Turns {
		if t.Turn == q.Turn {
			return i > 0 && n.Turns[i-1].Branch != q.Branch
		}
	}
	return false
}

func addDim(ds []DimCount, d string) []DimCount {
	for i := range ds {
		if ds[i].Dimension == d {
			ds[i].Count++
			return ds
		}
	}
	return append(ds, DimCount{d, 1})
}

func sortDims(ds []DimCount) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].Dimension < ds[j-1].Dimension; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

var familyTitle = map[string]string{
	FamilyBackjump: "Backjump", FamilyArtifact: "Artifact", FamilyTwin: "Twin", FamilyBridge: "Bridge",
}

var dimTitle = map[string]string{
	DimResume:   "Resume an earlier trajectory after intervening dialogue",
	DimLatest:   "Retrieve the latest value from the correct trajectory",
	DimArtifact: "Recall a referenced assistant-generated artifact",
	DimBridge:   "Combine evidence introduced in two trajectories",
	DimTwin:     "Disambiguate parallel same-schema trajectories",
}

// Render prints the composition tables; perSession adds one row per
// session.
func (st Stats) Render(w io.Writer, perSession bool) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "BranchMemEval: %d sessions, %s questions, %s non-question interactions, %s turns\n",
		st.Sessions, thousands(st.Questions), thousands(st.Interactions), thousands(st.Turns))
	fmt.Fprintf(ew, "Turns per session (questions included): %d–%d, mean %.2f\n", st.MinTurns, st.MaxTurns, st.MeanTurns)
	fmt.Fprintf(ew, "Tokens per session (%s): %s–%s, mean %s\n\n", st.TokenCounter, thousands(st.MinTokens), thousands(st.MaxTokens), thousands(int(st.MeanTokens+0.5)))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "(a) Diagnostic dimensions")
	fmt.Fprintln(tw, "Dim.\tControlled capability\tQs.")
	total := 0
	for _, d := range st.Dimensions {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", d.Dimension, dimTitle[d.Dimension], d.Count)
		total += d.Count
	}
	fmt.Fprintf(tw, "\tTotal\t%d\n", total)
	fmt.Fprintf(tw, "B1 questions that are the return turn (right after another branch, no resume turn): %d of %d\n\n", st.B1Returns, st.B1Questions)
	fmt.Fprintln(tw, "(b) Construction families")
	fmt.Fprintln(tw, "Family\tSess.\tQs.\tDimensions")
	for _, f := range st.Families {
		var parts []string
		for _, d := range f.Dims {
			parts = append(parts, fmt.Sprintf("%s %d", d.Dimension, d.Count))
		}
		title := familyTitle[f.Family]
		if title == "" {
			title = f.Family
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", title, f.Sessions, f.Questions, strings.Join(parts, ", "))
	}
	fmt.Fprintf(tw, "Total\t%d\t%d\t\n", st.Sessions, st.Questions)
	if perSession {
		fmt.Fprintln(tw, "\nSession\tFamily\tBranches\tTurns\tQs.\tTokens")
		for _, s := range st.PerSession {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", s.ID, s.Family, s.Branches, s.Turns, s.Questions, thousands(s.Tokens))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// thousands formats n with comma separators, as the paper writes 1,442.
func thousands(n int) string {
	s := money(n)
	return strings.TrimPrefix(s, "$")
}
