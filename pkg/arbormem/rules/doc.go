// Package rules holds ArborMem's rule-based readers of text: the offline
// memory operations (Ops: node metadata, path evolution, atomic facts,
// artifacts, events, states, the collision audit and the tag predictor,
// labelled heuristic wherever their results are reported), the cues the
// localization cascade reads (continuation and temporal-return cues, §4.2;
// topic anchors, return and new-topic cues for the offline routing), the
// query types of the dynamic answer-format lines, and the text analysis all
// of them share (analysed terms, sentences, entities, dates).
//
// The rules must generalise: they are developed against the LoCoMo
// development half and held-out data, never tuned on the BranchMemEval
// generator alone. Their regexps run through pkg/rxscan, which gives the
// regexps' own results faster; each hand-written start finder or prefilter
// here has a fuzz test against its regexp.
package rules
