package scoring

// CategoryLabel names a question category of bench as the category tables
// do ("Multi-hop (1)" for LoCoMo's category 1), so that every view of a run
// uses one name.
func CategoryLabel(bench, category string) string { return categoryRowLabel(bench, category) }
