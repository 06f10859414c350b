package rules

import (
	"slices"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// The offline extractors of one commit analyse the same user text or
// sentence several times (node metadata, topic, artifacts, localisation;
// facts and events sentence by sentence); these memos do the work once.
// Results are shared, so the wrappers return copies.
var (
	entityMemo = textmemo.New(256, func(t string) []string { return entitiesOf(t, -1) })
	anchorMemo = textmemo.New(256, cuesOf)
	termsMemo  = textmemo.New(256, termsOfText)
)

// Entities is entitiesOf(text, max), remembered: with no limit the
// first max entities are those a limit of max keeps (each is kept or
// skipped by the entities before it), so one unlimited run serves every
// max.
func Entities(text string, max int) []string {
	all := entityMemo.Get(text)
	if max > 0 && len(all) > max { // max <= 0 never stops entitiesOf
		all = all[:max]
	}
	return slices.Clone(all)
}

// inputCues are what the offline routing reads in an input: its topic
// anchors and its return cue, which the anchors include, found once.
type inputCues struct {
	anchors []Anchor
	ret     string // returnCue(text)
	isRet   bool
}

func cuesOf(text string) inputCues {
	obj, ok := returnCue(text)
	return inputCues{anchors: anchorsWith(text, obj, ok), ret: obj, isRet: ok}
}

// DetectAnchors is anchorsOf(text), remembered (anchors are not changed
// after they are made; the slice is a copy).
func DetectAnchors(text string) []Anchor { return slices.Clone(anchorMemo.Get(text).anchors) }

// DetectResume is ResumeCue(text), with the return cue remembered beside
// the anchors: localization reads both of the same input.
func DetectResume(text string) (string, bool) {
	c := anchorMemo.Get(text)
	return resumeWith(text, c.ret, c.isRet)
}

// Terms is termsOfText(text), remembered.
func Terms(text string) []string { return slices.Clone(termsMemo.Get(text)) }
