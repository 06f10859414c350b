package fake

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// The memory prompts show an interaction as "Speaker: content" lines
// (arbormem's turnLines, dialog.Interaction.Text); these read them back.

// reLabel is a line that opens a turn: "User: …", "assistant: …", or a
// corpus speaker's name ("Caroline: …", at most three capitalised words).
var reLabel = regexp.MustCompile(`^((?:[A-Z][\p{L}.'’-]*)(?: [A-Z][\p{L}.'’-]*){0,2}|user|assistant): `)

// parseTime reads a time shown in dialog.TimeLayout; "unknown" or anything
// else is the zero time.
func parseTime(s string) time.Time {
	t, err := time.Parse(dialog.TimeLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// parseExchange rebuilds the interaction whose turns text shows. "User" and
// "Assistant" (any case) are the two roles with no speaker name; other names
// are speakers, the first one met taking the user's role and the second the
// assistant's, as the two-speaker loaders map them. A line opens a new turn
// when its label is a role, a speaker already met, or a second speaker;
// every other line continues the current turn.
func parseExchange(text string, at time.Time) dialog.Interaction {
	in := dialog.Interaction{Time: at}
	var names []string
	known := func(l string) bool {
		for _, n := range names {
			if n == l {
				return true
			}
		}
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		m := reLabel.FindStringSubmatch(line)
		opens := m != nil && len(in.Turns) == 0
		if m != nil && !opens {
			switch l := m[1]; {
			case isRole(l), known(l):
				opens = true
			case len(names) < 2 && !hasRole(in.Turns):
				opens = true
			}
		}
		if !opens {
			if len(in.Turns) == 0 {
				in.Turns = append(in.Turns, dialog.Turn{Role: dialog.RoleUser, Content: line})
				continue
			}
			t := &in.Turns[len(in.Turns)-1]
			t.Content += "\n" + line
			continue
		}
		label, content := m[1], line[len(m[0]):]
		turn := dialog.Turn{Content: content}
		switch {
		case strings.EqualFold(label, "user"):
			turn.Role = dialog.RoleUser
		case strings.EqualFold(label, "assistant"):
			turn.Role = dialog.RoleAssistant
		default:
			if !known(label) {
				names = append(names, label)
			}
			turn.Speaker, turn.Role = label, dialog.RoleUser
			if names[0] != label {
				turn.Role = dialog.RoleAssistant
			}
		}
		in.Turns = append(in.Turns, turn)
	}
	for i := range in.Turns {
		in.Turns[i].Content = strings.TrimSpace(in.Turns[i].Content)
	}
	return in
}

func isRole(l string) bool { return strings.EqualFold(l, "user") || strings.EqualFold(l, "assistant") }

// hasRole reports whether a turn was opened by a role label, in which case
// other capitalised labels ("Note: …") are content, not speakers.
func hasRole(ts []dialog.Turn) bool {
	for _, t := range ts {
		if t.Speaker == "" {
			return true
		}
	}
	return false
}

// userAssistant is the interaction of assistant_artifact_miner's prompt,
// which shows the two sides separately.
func userAssistant(user, assistant string) dialog.Interaction {
	return dialog.Interaction{Turns: []dialog.Turn{
		{Role: dialog.RoleUser, Content: strings.TrimSpace(user)},
		{Role: dialog.RoleAssistant, Content: strings.TrimSpace(assistant)},
	}}
}

// reStamp is the "[YYYY-MM-DD HH:MM]" an evidence text (or a "- " list
// line) starts with, or the "time=YYYY-MM-DD HH:MM" field of a record line.
var reStamp = regexp.MustCompile(`^(?:- )?\[(\d{4}-\d\d-\d\d \d\d:\d\d)\]|\btime=(\d{4}-\d\d-\d\d \d\d:\d\d)`)

// stampTime is the time an evidence text shows, or zero.
func stampTime(text string) time.Time {
	if m := reStamp.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		return parseTime(m[1] + m[2])
	}
	return time.Time{}
}

// sharedLabels maps the shared answer template's evidence labels back to
// channels (answer.RenderHarness); any other label is a block name.
var sharedLabels = map[string]memory.Channel{
	"conversation":           memory.ChannelLocal,
	"retrieved conversation": memory.ChannelTurn,
	"fact":                   memory.ChannelFact,
	"record":                 memory.ChannelRecord,
	"session summary":        memory.ChannelSummary,
}

// reEntry is the header line of one evidence entry of the shared answer
// template: "(N) label" or "(N) label | YYYY-MM-DD HH:MM".
var reEntry = regexp.MustCompile(`(?m)^\((\d+)\) ([^\n]*?)(?: \| (\d{4}-\d\d-\d\d \d\d:\d\d|unknown))?$`)

// parseSharedEvidence reads the evidence entries of the shared answer
// template back into bundle items. Entries are numbered from 1; a header
// line whose number is not the next one is part of the previous entry.
func parseSharedEvidence(text string) []memory.Item {
	var items []memory.Item
	var starts [][]int
	for _, loc := range reEntry.FindAllStringSubmatchIndex(text, -1) {
		n, _ := strconv.Atoi(text[loc[2]:loc[3]])
		if n == len(starts)+1 {
			starts = append(starts, loc)
		}
	}
	for i, loc := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		label := text[loc[4]:loc[5]]
		body := strings.TrimSpace(text[loc[1]:end])
		it := memory.Item{Text: body}
		if ch, ok := sharedLabels[label]; ok {
			it.Channel = ch
		} else {
			it.Channel, it.Block = memory.ChannelRecord, label
		}
		if loc[6] >= 0 {
			it.Time = parseTime(text[loc[6]:loc[7]])
		} else {
			it.Time = stampTime(body)
		}
		items = append(items, it)
	}
	return items
}

// layoutChannels maps ArborMem's block names to the channels its items come
// from (arbormem.System.Render).
func layoutChannel(block string) memory.Channel {
	switch block {
	case memory.BlockHistory:
		return memory.ChannelLocal
	case memory.BlockSupplemental:
		return memory.ChannelTurn
	case memory.BlockFacts, memory.BlockUpdate:
		return memory.ChannelFact
	}
	return memory.ChannelRecord
}

// reBlock is a system message of ArborMem's layout holding one block.
var reBlock = regexp.MustCompile(`\A\[([A-Za-z]+)\]\n`)

// blockItems splits one block's text into items: raw-turn blocks hold
// timestamped items separated by blank lines (a blank line inside an item's
// text does not start a new one), the others one item per line.
func blockItems(block, text string) []memory.Item {
	var parts []string
	if block == memory.BlockHistory || block == memory.BlockSupplemental {
		for _, p := range strings.Split(text, "\n\n") {
			if n := len(parts); n > 0 && !strings.HasPrefix(p, "[") {
				parts[n-1] += "\n\n" + p
				continue
			}
			parts = append(parts, p)
		}
	} else {
		parts = strings.Split(text, "\n")
	}
	var out []memory.Item
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, memory.Item{Channel: layoutChannel(block), Block: block, Text: p, Time: stampTime(p)})
		}
	}
	return out
}

// section returns the text of a "### NAME" section of ArborMem's user
// message: from its heading to the next "### " heading or known block.
func section(msg, heading string) (string, bool) {
	i := strings.Index(msg, heading+"\n")
	if i < 0 {
		return "", false
	}
	rest := msg[i+len(heading)+1:]
	end := len(rest)
	for _, next := range []string{"\n\n### ", "\n\n[" + memory.BlockUpdate + "]\n"} {
		if j := strings.Index(rest, next); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end], true
}
