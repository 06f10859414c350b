package answer

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/memory"
)

// Structured evidence blocks are read the way the paper's chain_of_note
// prompt tells the answer model to read them (appendix D, "Evidence-first
// instruction"): "[ArtifactEvidence] ... Use ordinal fields for
// first/second/last questions" (an item marked exact_match is the asked one),
// and "[UpdateEvidence] ... If the question asks for previous/before/original,
// use the old value ... now/current/latest, use the new/current value".
// The block names are the paper's (pkg/memory); any system may emit them.

var (
	exactItemRe  = regexp.MustCompile(`\bitem_text=("(?:[^"\\]|\\.)*")`)
	updatePairRe = regexp.MustCompile(`old: ("(?:[^"\\]|\\.)*") \([^)]*\) -> new: ("(?:[^"\\]|\\.)*")`)
)

// exactArtifact returns the item text of an artifact marked exact_match in
// an [ArtifactEvidence] block, for ordinal questions.
func exactArtifact(in intent, items []memory.Item) (string, bool) {
	if in.ordinal == 0 {
		return "", false
	}
	for _, it := range items {
		if it.Block != memory.BlockArtifact {
			continue
		}
		for _, line := range strings.Split(it.Text, "\n") {
			if !strings.Contains(line, "exact_match=true") {
				continue
			}
			if m := exactItemRe.FindStringSubmatch(line); m != nil {
				if s, err := strconv.Unquote(m[1]); err == nil && s != "" {
					return s, true
				}
			}
		}
	}
	return "", false
}

// updateSide resolves a span picked from an [UpdateEvidence] line, which
// holds both values of a slot, to the side the question asks for: the old
// value for previous/original questions, otherwise the new one (the latest
// value holds). ok is false when the span is not from such a line.
func updateSide(in intent, it memory.Item, span string) (string, bool) {
	if it.Block != memory.BlockUpdate {
		return "", false
	}
	for _, line := range strings.Split(it.Text, "\n") {
		if !strings.Contains(line, strings.TrimSpace(span)) {
			continue
		}
		m := updatePairRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		side := m[2]
		if in.previous {
			side = m[1]
		}
		if s, err := strconv.Unquote(side); err == nil && s != "" {
			return s, true
		}
	}
	return "", false
}
