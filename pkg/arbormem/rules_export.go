package arbormem

// RuleOps is the rule-based implementation of every model-backed memory
// operation: the node metadata, path evolution, atomic facts, artifacts,
// events and state slots of the Extractor, the collision audit of the
// Auditor and the tag prediction of the TagPredictor.
type RuleOps interface {
	Extractor
	Auditor
	TagPredictor
}

// Rules returns the rule-based operations the offline path runs, for tools
// that must compute exactly what the offline path computes: the speaking fake
// endpoint (fake) answers ArborMem's memory prompts with them.
func Rules() RuleOps { return ruleOps{} }
