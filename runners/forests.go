package runners

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/text"
)

// forestLog writes forests.jsonl: per episode and ArborMem instance, the
// forest it built (pkg/forestview's View), for the HTML report's drawing.
// A nil forestLog (run.bundles: off) records nothing.
type forestLog struct {
	*record.Log[record.Forest]
}

// forestUserRunes bounds the user message kept with each node: the drawing
// shows summaries, and the full turn is the dataset's to keep.
const forestUserRunes = 200

// openForests opens dir/forests.jsonl unless run.bundles (mode) is "off":
// the forests serve the same drill-down as the bundles.
func openForests(dir, mode string) (*forestLog, error) {
	if mode == "off" {
		return nil, nil
	}
	l, _, err := record.OpenLog(filepath.Join(dir, "forests.jsonl"), record.Forest.Key)
	if err != nil {
		return nil, err
	}
	return &forestLog{l}, nil
}

// write records sys's forest at the end of the episode of stat, answered for
// variants; systems other than ArborMem have none. It supersedes an earlier
// line of the same instance: an episode is replayed only when something of
// it is missing or redone, and the newest forest is the one its newest
// samples were answered from.
func (f *forestLog) write(stat record.EpisodeStat, variants []string, sys memory.System) error {
	am, ok := sys.(*arbormem.System)
	if f == nil || !ok {
		return nil
	}
	v := forestview.Of(stat.Episode, am)
	for i := range v.Nodes {
		v.Nodes[i].User = text.ClipRunes(v.Nodes[i].User, forestUserRunes)
	}
	view, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode the forest of %s %s: %w", stat.Episode, stat.System, err)
	}
	return f.Supersede(record.Forest{Benchmark: stat.Benchmark, Episode: stat.Episode, System: stat.System,
		Variant: stat.Variant, Variants: variants, View: view})
}

// close closes the log; a nil forestLog has nothing to close.
func (f *forestLog) close() error {
	if f == nil {
		return nil
	}
	return f.Close()
}

// copyForests appends src's forests of the episode records about to be taken from
// it (keys, EpisodeStat keys) to dst's forests.jsonl; a source without
// forests (a run made before they were recorded) adds nothing.
func copyForests(src, dst string, keys map[string]bool) error {
	recs, err := record.ReadLog[record.Forest](filepath.Join(src, "forests.jsonl"))
	if os.IsNotExist(err) || len(keys) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	f, err := openForests(dst, "full")
	if err != nil {
		return err
	}
	for _, r := range record.Latest(recs, record.Forest.Key) {
		if keys[r.Key()] {
			if err := f.Supersede(r); err != nil {
				f.close()
				return err
			}
		}
	}
	return f.close()
}
