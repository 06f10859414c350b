package record

import "encoding/json"

// Forest is one line of forests.jsonl, the optional side file beside
// episodes.jsonl: the forest a system that places interactions (ArborMem)
// built over one episode, as it stood when the episode's replay ended, so
// that the HTML report can draw it without replaying the episode. It is
// keyed like the episode record of the same memory instance (EpisodeStat's
// key) and written just before it.
type Forest struct {
	Benchmark string `json:"benchmark"`
	Episode   string `json:"episode"`
	System    string `json:"system"`
	// Variant is the variant the instance was built with ("" the
	// reference); Variants lists every variant answered from it (recall-only
	// ablations share the reference's forest).
	Variant  string   `json:"variant,omitempty"`
	Variants []string `json:"variants,omitempty"`
	// View is the forest as pkg/forestview encodes a View (what arbor
	// serve's forest API returns), kept raw so that this package need not
	// import ArborMem and fields added to the view reach readers unchanged.
	View json.RawMessage `json:"view"`
}

// Key identifies the forest's memory instance (EpisodeStat.Key).
func (f Forest) Key() string {
	return EpisodeStat{Benchmark: f.Benchmark, Episode: f.Episode, System: f.System, Variant: f.Variant}.Key()
}
