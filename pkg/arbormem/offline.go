package arbormem

// The offline profile (docs/FIDELITY.md, "Offline profile"): what ArborMem
// does beyond the paper's method when its memory operations are rule-based.
// The paper's method assumes a chat model behind every memory operation and a
// cross-encoder behind localization; the offline default has lexical rules
// and a lexical reranker instead, whose signals are flatter and whose
// output carries no topic of its own, so a few rules make up for them. Each
// (but the fact topics, which follow the rule-based extractor that writes
// them) is a config key whose "auto" turns it on exactly with rule-based
// memory operations: on the model path (extractors: chat) the method is the
// paper's unless a key is set to "on".
// The rules live in offline_routing.go, offline_content.go and
// offline_supplemental.go; localize, recall
// and commit ask offline() once and call them only where it says so.

// offlineProfile is the offline profile's switches for one system.
type offlineProfile struct {
	// routing: implicit continuation, the continuation guard, return and
	// new-topic cues, resumption at a trajectory's latest state
	// (arbormem.routing, or Deps.Routing).
	routing bool
	// supplementalFill: a question that does not continue the
	// conversation reads supplemental turns first
	// (arbormem.supplemental_fill).
	supplementalFill bool
	// shiftMarkers, contentReturns: the routing rules that read the
	// input's content words against each trajectory's (offline_content.go;
	// arbormem.shift_markers, content_returns), each on only with routing.
	shiftMarkers, contentReturns bool
	// labelReturns: a fronted label that names another trajectory ("tax
	// again.", "biscuit update:") is a return cue (arbormem.label_returns),
	// with routing.
	labelReturns bool
	// novelShift: a long input that shares no content word with the active
	// trajectory leaves it (arbormem.novel_shift), with routing.
	novelShift bool
	// factTopics: a rule-extracted fact that does not name its trajectory's
	// topic is shown with it (the chat extractor writes facts that stand
	// alone, as its prompt asks).
	factTopics bool
}

// offline resolves the profile from the configuration and the memory
// operations in use.
func (s *System) offline() offlineProfile {
	heur := s.ext.Heuristic()
	p := offlineProfile{factTopics: heur}
	switch s.deps.Routing {
	case RoutingHeuristic:
		p.routing = true
	case RoutingPaper:
		p.routing = false
	default:
		p.routing = heur
	}
	p.supplementalFill = onOffAuto(s.cfg.SupplementalFill, heur)
	p.shiftMarkers = p.routing && onOffAuto(s.cfg.ShiftMarkers, heur)
	p.contentReturns = p.routing && onOffAuto(s.cfg.ContentReturns, heur)
	p.labelReturns = p.routing && onOffAuto(s.cfg.LabelReturns, heur)
	p.novelShift = p.routing && onOffAuto(s.cfg.NovelShift, heur)
	return p
}

// contentRouting reports whether any rule reads the content match.
func (p offlineProfile) contentRouting() bool {
	return p.shiftMarkers || p.contentReturns || p.novelShift
}

// onOffAuto resolves an offline-profile key: "on", "off", or auto (the
// default) as heur says.
func onOffAuto(v string, heur bool) bool {
	switch v {
	case "on":
		return true
	case "off":
		return false
	}
	return heur
}
