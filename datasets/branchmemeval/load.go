package branchmemeval

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Name is the benchmark's registry name.
const Name = "branchmemeval"

// shipped is the default set: `arbor bme generate --seed 42`. A test checks
// that it is byte-identical to what the generator produces.
//
//go:embed branchmemeval.json
var shipped []byte

// Shipped returns the embedded default set's bytes.
func Shipped() []byte { return shipped }

func init() { datasets.Register(Name, Load) }

// Load implements datasets.Loader. path "" loads the embedded default set;
// any other path loads that file. Only the shape is checked here; `arbor
// bme validate` runs the benchmark's rules.
func Load(ctx context.Context, path string, opt datasets.Options) ([]datasets.Episode, error) {
	data, name := shipped, "embedded branchmemeval.json"
	if path != "" {
		b, err := ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("branchmemeval: %w", err)
		}
		data, name = b, path
	}
	if opt.Progress != nil {
		opt.Progress(int64(len(data)), int64(len(data)))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := Parse(data, name)
	if err != nil {
		return nil, fmt.Errorf("branchmemeval: %w", err)
	}
	eps, err := Episodes(f, opt.Categories)
	if err != nil {
		return nil, fmt.Errorf("branchmemeval: %s: %w", name, err)
	}
	return eps, nil
}

// Episodes turns a parsed file into online episodes (paper §5, "Online
// protocol"): one per session, with every question at its position in the
// dialogue and its canonical turn committed after it is answered. Latent
// branch labels go to Episode.Latent, which no memory system receives.
// categories keeps only questions of those dimensions (empty: all); a
// question filtered out is replayed as an ordinary interaction so the
// history is the same for every filter.
func Episodes(f *File, categories []string) ([]datasets.Episode, error) {
	keep := map[string]bool{}
	for _, c := range categories {
		if strings.EqualFold(c, "all") { // as the other loaders accept it
			keep = map[string]bool{}
			break
		}
		if !contains(Dimensions, c) {
			return nil, fmt.Errorf("unknown category %q (known: %v)", c, Dimensions)
		}
		keep[c] = true
	}
	eps := make([]datasets.Episode, 0, len(f.Sessions))
	for si := range f.Sessions {
		s := &f.Sessions[si]
		notes := f.Notes(s.ID)
		if notes == nil {
			return nil, fmt.Errorf("session %s: no annotations", s.ID)
		}
		if len(notes.Turns) != len(s.Turns) {
			return nil, fmt.Errorf("session %s: %d turns but %d turn annotations", s.ID, len(s.Turns), len(notes.Turns))
		}
		qn := map[string]*QuestionNote{}
		for i := range notes.Questions {
			qn[notes.Questions[i].Question] = &notes.Questions[i]
		}
		ep := datasets.Episode{ID: s.ID, Benchmark: Name, Latent: &datasets.Latent{Branch: map[string]string{}}}
		for ti := range s.Turns {
			t := &s.Turns[ti]
			in := &dialog.Interaction{ID: t.ID, Session: s.ID, Time: t.Time, Turns: []dialog.Turn{
				{ID: t.ID + ":u", Role: dialog.RoleUser, Content: t.User},
				{ID: t.ID + ":a", Role: dialog.RoleAssistant, Content: t.Assistant},
			}}
			ep.Latent.Branch[t.ID] = notes.Turns[ti].Branch
			if t.Question == nil {
				ep.Steps = append(ep.Steps, datasets.Step{Interaction: in})
				continue
			}
			n := qn[t.Question.ID]
			if n == nil {
				return nil, fmt.Errorf("session %s turn %s: question %s has no annotation", s.ID, t.ID, t.Question.ID)
			}
			if len(keep) > 0 && !keep[n.Dimension] {
				ep.Steps = append(ep.Steps, datasets.Step{Interaction: in})
				continue
			}
			ep.Latent.Branch[t.Question.ID] = n.Branch
			ep.Steps = append(ep.Steps, datasets.Step{Question: &datasets.Question{
				ID:         t.Question.ID,
				Text:       t.User,
				Time:       t.Time,
				Gold:       t.Question.Gold,
				Confounder: t.Question.Confounder,
				Category:   n.Dimension,
				Labels:     map[string]string{"family": n.Family},
				Evidence:   append([]string(nil), n.Evidence...),
				Canonical:  in,
			}})
		}
		eps = append(eps, ep)
	}
	return eps, nil
}
