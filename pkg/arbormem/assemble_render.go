package arbormem

// Paper appendix D, "Runtime assembly": the answer messages ArborMem lays
// out itself (system anchor, current time, evidence blocks, the dynamic
// answer-format lines).

import (
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// answerFormatData holds the query-type conditions of the dynamic
// answer-format lines (appendix D, "Dynamic Answer-Format Instructions");
// the template prints only the lines whose condition holds.
type answerFormatData struct {
	Preference     bool
	YesNo          bool
	PrevOrCurrent  bool
	Current        bool
	Previous       bool
	Anchors        []string
	Ordinal        string
	Bridge         bool
	CountSum       bool
	HasComputation bool
}

// historyHintData selects the runtime history hints.
type historyHintData struct{ Current bool }

// Render lays out ArborMem's answer messages by the paper's runtime
// assembly; see RenderAnswer, which every system's answer goes through.
func (s *System) Render(q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	return RenderAnswer(s.deps.Prompts, q, b)
}

// RenderAnswer lays out the answer messages by the paper's runtime assembly
// (appendix D, Table "Method-side runtime assembly"): a system message with
// system_anchor and ### CURRENT TIME; system messages for
// [ConversationHistory], [SupplementalEvidence] and each structured evidence
// block that has content; and a user message that carries ### DATA CONTEXT
// and [UpdateEvidence] with the dynamic answer-format lines, chain_of_note
// and history hints when facts were retrieved, the answer-format lines and
// chain_of_note_no_facts when only other evidence was, or the answer-format
// lines and the raw input when there is no memory evidence at all.
//
// It is the one answer template of every system (P:1282-1285, "the same
// ... answer template"; answer.template: paper): only the memory blocks
// differ. An item without a block name goes where ArborMem's evidence of
// its kind goes (LayoutBlock). p nil means the embedded prompts.
func RenderAnswer(p *prompt.Set, q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	if p == nil {
		p = prompt.Default()
	}
	anchor, err := p.Render("system_anchor", nil)
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: "system", Content: strings.TrimRight(anchor, "\n") + "\n\n### CURRENT TIME\n" + dialog.FormatTime(q.Time)}}

	blocks := map[string][]string{}
	var order []string
	for _, it := range b.Items {
		blk := it.Block
		if blk == "" {
			blk = LayoutBlock(it.Channel)
		}
		if _, ok := blocks[blk]; !ok {
			order = append(order, blk)
		}
		blocks[blk] = append(blocks[blk], it.Text)
	}
	facts := blocks[memory.BlockFacts]
	hasFacts := len(facts) > 0
	sysBlock := func(name string) {
		if lines, ok := blocks[name]; ok {
			sep := "\n"
			if name == memory.BlockHistory || name == memory.BlockSupplemental {
				sep = "\n\n"
			}
			msgs = append(msgs, llm.Message{Role: "system", Content: "[" + name + "]\n" + strings.Join(lines, sep)})
		}
	}
	sysBlock(memory.BlockHistory)
	sysBlock(memory.BlockSupplemental)
	structured := []string{memory.BlockComputation, memory.BlockTopicSlot, memory.BlockArtifact, memory.BlockEvent, memory.BlockCountSource, memory.BlockState, memory.BlockPreference, memory.BlockBridge}
	if !hasFacts {
		// Without facts the user message has no DATA CONTEXT to carry update
		// pairs in; they go with the other structured blocks.
		structured = append([]string{memory.BlockUpdate}, structured...)
	}
	known := map[string]bool{memory.BlockHistory: true, memory.BlockSupplemental: true, memory.BlockFacts: true, memory.BlockUpdate: true}
	for _, name := range structured {
		known[name] = true
		sysBlock(name)
	}
	for _, name := range order {
		if !known[name] {
			sysBlock(name)
		}
	}

	qt := rules.ClassifyQuery(q.Text)
	af := answerFormatData{Preference: qt.Preference, YesNo: qt.YesNo, PrevOrCurrent: qt.Previous || qt.Current,
		Current: qt.Current, Previous: qt.Previous, Anchors: qt.Anchors, Bridge: qt.Bridge, CountSum: qt.Count || qt.Sum,
		HasComputation: len(blocks[memory.BlockComputation]) > 0}
	switch {
	case qt.Ordinal > 0:
		af.Ordinal = strconv.Itoa(qt.Ordinal)
	case qt.Ordinal < 0:
		af.Ordinal = "last"
	}
	format, err := p.Render("answer_format", af)
	if err != nil {
		return nil, err
	}
	format = strings.TrimSpace(format)
	// The benchmark's answer directives, word for word as in the shared
	// template, follow the answer-format lines in every layout.
	directives, err := p.Directives(q.Benchmark)
	if err != nil {
		return nil, err
	}
	format = joinNonEmpty(format, directives)

	var u strings.Builder
	section := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if u.Len() > 0 {
			u.WriteString("\n\n")
		}
		u.WriteString(s)
	}
	switch {
	case hasFacts:
		section("### DATA CONTEXT\n" + strings.Join(facts, "\n"))
		if up := blocks[memory.BlockUpdate]; len(up) > 0 {
			section("[" + memory.BlockUpdate + "]\n" + strings.Join(up, "\n"))
		}
		note, err := p.Render("chain_of_note", nil)
		if err != nil {
			return nil, err
		}
		instr := joinNonEmpty(format, note)
		if len(b.Items) > len(facts)+len(blocks[memory.BlockUpdate]) {
			hints, err := p.Render("history_hints", historyHintData{Current: qt.Current})
			if err != nil {
				return nil, err
			}
			instr = joinNonEmpty(instr, hints)
		}
		section("### INSTRUCTION\n" + instr)
		section("### USER INPUT\n" + q.Text)
	case len(b.Items) > 0:
		note, err := p.Render("chain_of_note_no_facts", nil)
		if err != nil {
			return nil, err
		}
		section("### INSTRUCTION\n" + joinNonEmpty(format, note))
		section("### USER INPUT\n" + q.Text)
	default:
		section(format)
		section(q.Text)
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: u.String()})
	return msgs, nil
}

// LayoutBlock is the block of the runtime assembly that holds an item
// carrying no block name of its own (a baseline's): raw conversation,
// whether recent (Full, Recent), retrieved (BM25) or summarised (Session
// Summary), goes where ArborMem's routed trajectory goes, [ConversationHistory],
// the main raw record; retrieved facts and notes (Mem0, A-MEM, Graphiti,
// LiCoMemory) go under ### DATA CONTEXT; anything else is a block of its
// own. [SupplementalEvidence] is not used for a baseline: the anchor tells
// the model to read it only on a strict time or entity match, which would
// demote a baseline's main evidence (docs/FIDELITY.md, answer.template).
func LayoutBlock(ch memory.Channel) string {
	switch ch {
	case memory.ChannelLocal, memory.ChannelTurn, memory.ChannelSummary:
		return memory.BlockHistory
	case memory.ChannelFact:
		return memory.BlockFacts
	}
	return "OtherEvidence"
}

func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n\n")
}
