package openaifake

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Mem0Reply answers Mem0's memory prompts with the JSON Mem0 parses, so that
// a Mem0 sidecar run against the fake really adds, updates and finds
// memories; ok is false for any other prompt. It recognises:
//
//   - mem0ai 3.x (npm, OSS) additive extraction: system prompt "You are a
//     Memory Extractor", user prompt with "## New Messages" → {"memory":
//     [{"id", "text", "attributed_to"}]}, one memory per message;
//   - the classic fact retrieval (Python mem0ai, "Personal Information
//     Organizer") → {"facts": [...]}, one fact per user message;
//   - the classic memory update ("smart memory manager", "Compare newly
//     retrieved facts") → {"memory": [{"id", "text", "event", "old_memory"}]}:
//     a new fact sharing most of its words with an existing memory UPDATEs
//     it, any other is ADDed, the rest stay (NONE).
//
// The prompts are matched on the phrases Mem0's own schema selection uses
// (mem0ai 3.3.1 dist/oss/index.mjs), so the rules follow the library.
func Mem0Reply(req Request) (string, bool) {
	var system, user string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system += m.Content
		case "user":
			user = m.Content
		}
	}
	switch {
	case strings.Contains(system, "Memory Extractor") && strings.Contains(user, "## New Messages"):
		return mem0Additive(user), true
	case strings.Contains(system, "Personal Information Organizer"):
		return mem0Facts(user), true
	case strings.Contains(system+user, "smart memory manager") && strings.Contains(system+user, "Compare newly retrieved facts"):
		return mem0Update(user), true
	}
	return "", false
}

// mem0Message matches the start of one "role: content" line of Mem0's
// parsed messages.
var mem0Message = regexp.MustCompile(`(?m)^(user|assistant): `)

// mem0Messages splits Mem0's "role: content" transcript into messages;
// content may span lines.
func mem0Messages(text string) (roles, contents []string) {
	idx := mem0Message.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		c := strings.TrimSpace(text[m[1]:end])
		if c == "" {
			continue
		}
		roles = append(roles, text[m[2]:m[3]])
		contents = append(contents, strings.Join(strings.Fields(c), " "))
	}
	return roles, contents
}

// section returns the text of a "## name" section of Mem0's prompt.
func section(prompt, name string) string {
	i := strings.Index(prompt, "## "+name)
	if i < 0 {
		return ""
	}
	rest := prompt[i+len("## "+name):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.Index(rest, "\n# "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func mem0Additive(user string) string {
	roles, contents := mem0Messages(section(user, "New Messages"))
	type mem struct {
		ID           string `json:"id"`
		Text         string `json:"text"`
		AttributedTo string `json:"attributed_to"`
	}
	out := struct {
		Memory []mem `json:"memory"`
	}{Memory: []mem{}}
	for i, c := range contents {
		who := "User"
		if roles[i] == "assistant" {
			who = "Assistant"
		}
		out.Memory = append(out.Memory, mem{ID: strconv.Itoa(len(out.Memory)), Text: who + " said: " + c, AttributedTo: roles[i]})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func mem0Facts(user string) string {
	roles, contents := mem0Messages(user)
	facts := []string{}
	for i, c := range contents {
		if roles[i] == "user" {
			facts = append(facts, c)
		}
	}
	b, _ := json.Marshal(map[string][]string{"facts": facts})
	return string(b)
}

// fenced returns the contents of the prompt's ``` blocks.
func fenced(s string) []string {
	parts := strings.Split(s, "```")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		out = append(out, strings.TrimSpace(strings.TrimPrefix(parts[i], "json")))
	}
	return out
}

// pyString matches a quoted string in JSON or Python repr form.
var pyString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`)

// looseStrings reads the strings of a JSON or Python-repr list (Python
// mem0ai formats lists with str()); keys of dicts come out too, in order.
func looseStrings(s string) []string {
	var out []string
	for _, m := range pyString.FindAllStringSubmatch(s, -1) {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		if u, err := strconv.Unquote(`"` + v + `"`); err == nil {
			v = u
		}
		out = append(out, v)
	}
	return out
}

func mem0Update(user string) string {
	blocks := fenced(user)
	type mem struct {
		ID        string `json:"id"`
		Text      string `json:"text"`
		Event     string `json:"event"`
		OldMemory string `json:"old_memory,omitempty"`
	}
	var old []mem
	var facts []string
	if len(blocks) >= 2 {
		// Old memory: a list of {"id": ..., "text": ...}.
		s := looseStrings(blocks[0])
		for i := 0; i+3 < len(s); i += 4 {
			if s[i] == "id" && s[i+2] == "text" {
				old = append(old, mem{ID: s[i+1], Text: s[i+3], Event: "NONE"})
			}
		}
		facts = looseStrings(blocks[len(blocks)-1])
	}
	out := append([]mem{}, old...)
	next := len(old)
	for _, f := range facts {
		best, bestScore := -1, 0.0
		for i, o := range old {
			if sc := Score(f, o.Text); sc > bestScore {
				best, bestScore = i, sc
			}
		}
		if best >= 0 && bestScore >= 0.6 && out[best].Event == "NONE" {
			out[best] = mem{ID: old[best].ID, Text: f, Event: "UPDATE", OldMemory: old[best].Text}
			continue
		}
		out = append(out, mem{ID: strconv.Itoa(next), Text: f, Event: "ADD"})
		next++
	}
	b, _ := json.Marshal(map[string][]mem{"memory": out})
	return string(b)
}
