package branchmemeval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultSeed is the seed of the shipped set.
const DefaultSeed = 42

// Options control generation.
type Options struct {
	Seed int64
	// Composition defaults to PaperComposition().
	Composition *Composition
}

// Generate plans and realizes a BranchMemEval set with the template
// verbalizer, then validates it. It is a pure function of the options:
// the same seed gives byte-identical output from Marshal.
func Generate(ctx context.Context, opt Options) (*File, error) {
	comp := PaperComposition()
	if opt.Composition != nil {
		comp = *opt.Composition
	}
	if err := comp.Check(); err != nil {
		return nil, err
	}
	top := newRNG(opt.Seed, 0)
	type slot struct {
		family string
		dims   []string
	}
	var slots []slot
	for _, f := range comp.Families {
		for _, ds := range sessionDims(f) {
			slots = append(slots, slot{f.Family, ds})
		}
	}
	// Families are interleaved across session IDs rather than in blocks.
	slots = shuffled(top, slots)
	turns := splitTurns(top, len(slots), comp.Interactions+comp.Questions(), comp.MinTurns, comp.MaxTurns)
	width := max(2, len(fmt.Sprint(len(slots))))
	f := &File{Format: FormatVersion, Seed: opt.Seed, Verbalizer: "template", Composition: comp}
	base := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	for i, s := range slots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := fmt.Sprintf("s%0*d", width, i+1)
		start := base.AddDate(0, 0, top.between(0, 300)).Add(time.Duration(top.between(8*60, 20*60)) * time.Minute)
		var sp *sessionPlan
		var err error
		for attempt := 0; attempt < 400; attempt++ {
			r := newRNG(opt.Seed, uint64(i+1)<<20|uint64(attempt))
			sp, err = safePlan(r, id, s.family, s.dims, turns[i], start)
			if err == nil {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("plan session %s (%s): %w", id, s.family, err)
		}
		sess, notes, err := safeRealize(newRNG(opt.Seed, uint64(i+1)<<20|0xfffff), sp)
		if err != nil {
			return nil, fmt.Errorf("realize session %s: %w", id, err)
		}
		f.Sessions = append(f.Sessions, sess)
		f.Annotations.Sessions = append(f.Annotations.Sessions, notes)
	}
	if issues := Validate(f); len(issues) > 0 {
		return nil, fmt.Errorf("generated set fails validation (a generator bug): %w", issuesError(issues))
	}
	return f, nil
}

// safePlan turns a content-table panic (an unknown placeholder) into an
// error so one bad template cannot crash a CLI run.
func safePlan(r *rng, id, family string, dims []string, turns int, start time.Time) (sp *sessionPlan, err error) {
	defer func() {
		if p := recover(); p != nil {
			sp, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return planSession(r, id, family, dims, turns, start)
}

func safeRealize(r *rng, sp *sessionPlan) (s Session, n SessionNotes, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	s, n = realizeSession(r, sp)
	return s, n, nil
}

// splitTurns deals total turns over n sessions within [lo, hi]: random
// draws, then single-turn nudges until the sum is exact.
func splitTurns(r *rng, n, total, lo, hi int) []int {
	out := make([]int, n)
	sum := 0
	for i := range out {
		out[i] = r.between(lo, hi)
		sum += out[i]
	}
	for sum != total {
		i := r.IntN(n)
		switch {
		case sum < total && out[i] < hi:
			out[i]++
			sum++
		case sum > total && out[i] > lo:
			out[i]--
			sum--
		}
	}
	return out
}

// realizeSession verbalizes a scheduled plan into a session and its
// annotations.
func realizeSession(r *rng, sp *sessionPlan) (Session, SessionNotes) {
	z := newRealizer(r, sp)
	s := Session{ID: sp.id}
	notes := SessionNotes{Session: sp.id, Family: sp.family}
	for _, b := range sp.branches {
		bn := BranchNote{ID: b.id, Domain: b.dom.key, Title: capFirst(b.title(r)), Anchor: b.anchor}
		if b.twin != nil {
			bn.Twin = b.twin.id
		}
		notes.Branches = append(notes.Branches, bn)
	}
	turnID := func(a *act) string { return fmt.Sprintf("%s-t%03d", sp.id, a.turn+1) }
	for i, a := range sp.order {
		t := z.realize(i, a)
		turn := Turn{ID: turnID(a), Time: sp.times[i], User: t.user, Assistant: t.assistant}
		if a.kind == actQuestion {
			turn.Question = &Question{ID: a.q.id, Gold: a.q.gold, Confounder: a.q.conf}
		}
		s.Turns = append(s.Turns, turn)
		notes.Turns = append(notes.Turns, TurnNote{Turn: turn.ID, Branch: a.br.id, Act: a.kind, Slot: t.slot, Values: t.values})
	}
	for _, a := range sp.order {
		if a.kind != actQuestion {
			continue
		}
		q := a.q
		qn := QuestionNote{
			Question: q.id, Turn: turnID(a), Dimension: q.dim, Family: q.family, Branch: q.br.id,
			ConfounderTurn: turnID(q.confAct), ConfounderBranch: q.confBr.id,
			Link: q.link, Anchor: q.anchor, Ordinal: q.ordinal,
		}
		if q.slot != nil {
			qn.Slot = q.slot.spec.key
		}
		for _, e := range q.evid {
			qn.Evidence = append(qn.Evidence, turnID(e))
		}
		for _, l := range q.linkActs {
			qn.LinkTurns = append(qn.LinkTurns, turnID(l))
		}
		notes.Questions = append(notes.Questions, qn)
	}
	return s, notes
}

func issuesError(issues []Issue) error {
	const show = 20
	var lines []string
	for i, is := range issues {
		if i == show {
			lines = append(lines, fmt.Sprintf("... and %d more", len(issues)-show))
			break
		}
		lines = append(lines, is.String())
	}
	return errors.New(strings.Join(lines, "\n"))
}
