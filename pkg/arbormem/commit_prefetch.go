package arbormem

// Paper §4.4, the commit's first round (every operation that needs only the
// interaction), and the ingest pipelining arbor adds on the model path
// (arbormem.prefetch; docs/FIDELITY.md).

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// round1 is the first round of a commit: every operation that needs only
// the interaction (§4.4: node metadata, atomic facts, artifacts, events,
// states, the node embedding), and, when prefetched, the embedding of the
// user input that localization scores with.
type round1 struct {
	in   dialog.Interaction
	done chan struct{}
	err  error

	meta NodeMeta
	// metaDone is closed when meta is known (metaErr set), which may be
	// before the rest of the round: path evolution needs only meta.
	metaDone chan struct{}
	metaErr  error
	// factsDone and statesDone are closed when drafts and sts are known
	// (factsErr, statesErr set), or at once when their extractor is off:
	// the audit needs only those two.
	factsDone, statesDone chan struct{}
	factsErr, statesErr   error
	drafts                []FactDraft
	arts                  []Artifact
	evs                   []Event
	sts                   []State
	nvec                  []float32
	nvecErr               error

	// locVec returns the prefetched input embedding (nil when not
	// prefetched); it waits for the embedding call.
	locVec func() ([]float32, error)
}

// wait blocks until the round has finished or ctx ends.
func (r *round1) wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startRound1 starts round 1 for in in the background. withLoc also embeds
// localization's input text (only worth it ahead of time: a commit that
// localizes now embeds lazily, and not at all on a cached decision).
func (s *System) startRound1(ctx context.Context, in dialog.Interaction, withLoc bool) *round1 {
	r := &round1{in: in, done: make(chan struct{}), metaDone: make(chan struct{}),
		factsDone: make(chan struct{}), statesDone: make(chan struct{})}
	if withLoc && s.cfg.Localization {
		var (
			once sync.Once
			v    []float32
			err  error
		)
		vdone := make(chan struct{})
		go func() {
			defer close(vdone)
			once.Do(func() { v, err = s.embedOne(ctx, localizationText(in)) })
		}()
		r.locVec = func() ([]float32, error) {
			<-vdone
			return v, err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		// Without a vector the node is still stored and found lexically.
		r.nvec, r.nvecErr = s.embedOne(gctx, s.embedClip(in.Text()))
		return nil
	})
	// Rule-based operations are CPU work with no latency to overlap, and an
	// offline run already keeps every core busy with other episodes: they
	// run one after another on the calling goroutine, whose stack has
	// grown already, instead of on five new goroutines that each grow
	// theirs (a tenth of an offline commit's CPU). Their results do not
	// depend on the order. Only Commit starts a rule-based round 1
	// (Prefetch does not), so the caller waits for it anyway.
	inline := s.ext.Heuristic()
	var inlineErr error
	// run runs f; when done is given, f's error goes to *errp and done is
	// closed after it, or at once (with the error that stopped the round)
	// when an inline round skips f.
	run := func(done chan struct{}, errp *error, f func() error) {
		step := func() error {
			err := f()
			if done != nil {
				*errp = err
				close(done)
			}
			return err
		}
		switch {
		case !inline:
			g.Go(step)
		case inlineErr == nil:
			inlineErr = step()
		case done != nil:
			*errp = inlineErr
			close(done)
		}
	}
	run(r.metaDone, &r.metaErr, func() (err error) {
		r.meta, err = fallback(s, gctx, func() (NodeMeta, error) { return s.ext.NodeMetadata(gctx, in) },
			func() (NodeMeta, error) { return s.rules.NodeMetadata(gctx, in) })
		return err
	})
	if s.cfg.AtomicFacts {
		run(r.factsDone, &r.factsErr, func() (err error) {
			r.drafts, err = fallback(s, gctx, func() ([]FactDraft, error) { return s.ext.Facts(gctx, in) },
				func() ([]FactDraft, error) { return s.rules.Facts(gctx, in) })
			return err
		})
	} else {
		close(r.factsDone)
	}
	if s.cfg.StructuredExtraction {
		run(nil, nil, func() (err error) {
			r.arts, err = fallback(s, gctx, func() ([]Artifact, error) { return s.ext.Artifacts(gctx, in) },
				func() ([]Artifact, error) { return s.rules.Artifacts(gctx, in) })
			return err
		})
		run(nil, nil, func() (err error) {
			r.evs, err = fallback(s, gctx, func() ([]Event, error) { return s.ext.Events(gctx, in) },
				func() ([]Event, error) { return s.rules.Events(gctx, in) })
			return err
		})
		run(r.statesDone, &r.statesErr, func() (err error) {
			r.sts, err = fallback(s, gctx, func() ([]State, error) { return s.ext.States(gctx, in) },
				func() ([]State, error) { return s.rules.States(gctx, in) })
			return err
		})
	} else {
		close(r.statesDone)
	}
	go func() {
		r.err = g.Wait()
		if r.err == nil {
			r.err = inlineErr
		}
		close(r.done)
	}()
	return r
}

// Prefetch starts the first round of in's commit (its extractors and
// embeddings, which need only the interaction, §4.4) while the previous
// interaction is still being committed, so that ingesting a dialogue costs
// per turn only what needs the committed state: localization's rerank, then
// path evolution beside the audit. It changes no state and no result: the
// following Commit of in uses what was fetched (a Commit of another
// interaction ignores it). With rule-based operations (offline, nothing to
// overlap) or arbormem.prefetch off it does nothing.
func (s *System) Prefetch(ctx context.Context, in dialog.Interaction) {
	if !s.cfg.Prefetch || s.ext.Heuristic() || in.ID == "" || len(in.Turns) == 0 {
		return
	}
	r := s.startRound1(ctx, in, true)
	s.prefetchMu.Lock()
	// A runner prefetches turn t+1 before committing turn t, whose own
	// prefetch is still pending: keep the two most recent.
	if len(s.prefetched) == 2 {
		s.prefetched = s.prefetched[1:]
	}
	s.prefetched = append(s.prefetched, r)
	s.prefetchMu.Unlock()
}

// takePrefetched returns and forgets the prefetched round 1 of in, or nil
// when none matches it (same ID and the same turns).
func (s *System) takePrefetched(in dialog.Interaction) *round1 {
	s.prefetchMu.Lock()
	defer s.prefetchMu.Unlock()
	for i, r := range s.prefetched {
		if r.in.ID == in.ID && r.in.Time.Equal(in.Time) && r.in.Session == in.Session && slices.Equal(r.in.Turns, in.Turns) {
			s.prefetched = slices.Delete(s.prefetched, i, i+1)
			return r
		}
	}
	return nil
}
