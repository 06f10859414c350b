package runners

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// memoryReply answers each of ArborMem's memory prompts (appendix D) with a
// small valid reply of the shape the prompt asks for, so that a timing run
// against the fake server makes exactly the calls a healthy model would (no
// repair retries, no fallbacks). The request's purpose is not on the wire:
// prompts are recognised by their first line. Other prompts (answers,
// judges) get a one-word reply.
func memoryReply(req openaifake.Request) string {
	if len(req.Messages) == 0 {
		return "ok"
	}
	body := req.Messages[len(req.Messages)-1].Content
	first, _, _ := strings.Cut(body, "\n")
	words := replyWords(body)
	quote := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch {
	case strings.HasPrefix(first, "Role: you are an analyst who keeps every detail."): // node_metadata
		return quote(map[string]any{"summary": "The user discussed " + strings.Join(words, " ") + ".", "entities": words[:min(2, len(words))]})
	case strings.HasPrefix(first, "Role: you maintain the mission summary"): // path_evolution
		return "Topic: " + strings.Join(words[:min(3, len(words))], " ") + " | Progress: in progress"
	case strings.HasPrefix(first, "Role: you build a personal knowledge graph."): // atomic_fact_miner
		return quote([]map[string]any{{"fact": "User mentioned " + strings.Join(words, " ") + ".", "attribute_tag": "3.1", "entities": words[:min(2, len(words))]}})
	case strings.HasPrefix(first, "Role: you maintain the consistency of a fact store."): // fact_collision_auditor_batch
		var out []map[string]string
		for _, m := range pairIDs.FindAllStringSubmatch(body, -1) {
			out = append(out, map[string]string{"pair_id": m[1], "verdict": "INDEPENDENT"})
		}
		if out == nil {
			return "[]"
		}
		return quote(out)
	case strings.HasPrefix(first, "Role: you archive what the assistant produced."), // assistant_artifact_miner
		strings.HasPrefix(first, "Role: you extract events on a timeline."): // event_miner
		return "[]"
	case strings.HasPrefix(first, "Role: you track the user's changing state."): // state_slot_miner
		return quote([]map[string]any{{"key": "topic", "value": strings.Join(words, " "), "attribute_tag": "2.6", "entities": []string{}, "evidence_text": strings.Join(words, " ")}})
	case strings.HasPrefix(first, "Predict the 1-3 attribute tags"): // attribute_tag_predictor
		return `["3.1"]`
	}
	return "ok"
}

var (
	pairIDs = regexp.MustCompile(`"pair_id":\s*"([^"]*)"`)
	// exchangeWords finds the user's line of an exchange ("User: …").
	exchangeWords = regexp.MustCompile(`(?m)^(?:User|user): (.*)$`)
)

// replyWords picks up to four words of the exchange's user line (or of the
// prompt's last line), so that replies differ from turn to turn as a model's
// would.
func replyWords(body string) []string {
	line := ""
	if m := exchangeWords.FindStringSubmatch(body); m != nil {
		line = m[1]
	} else if i := strings.LastIndexByte(strings.TrimSpace(body), '\n'); i >= 0 {
		line = body[i+1:]
	}
	var out []string
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, `.,;:!?"'()[]{}`)
		if len(w) > 3 {
			out = append(out, strings.ToLower(w))
		}
		if len(out) == 4 {
			break
		}
	}
	if len(out) == 0 {
		out = []string{fmt.Sprint("item", len(body))}
	}
	return out
}
