package fake

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// Noise kinds: the ways real chat models vary a reply. A JSON reply is
// varied by one kind drawn uniformly; a text reply only by a reasoning block.
//
//   - reasoning: a <think>…</think> block before the reply, as servers
//     without a reasoning parser leave it in the content;
//   - fence: the JSON in a ```json markdown fence;
//   - prose: a sentence before and after the JSON;
//   - keys: object keys reordered, with an extra key the schema lacks;
//   - trailing-comma: a comma before every closing bracket;
//   - single-quotes: strings in Python's quotes ('…');
//   - truncate: the reply cut at max_tokens, after a reasoning block long
//     enough to use up the budget (or cut at a random word when the request
//     sets no max_tokens).
var Noise = []string{"reasoning", "fence", "prose", "keys", "trailing-comma", "single-quotes", "truncate"}

// thought is the reasoning block's text: no brackets or quotes (prose that
// holds them is a separate robustness question), no "yes" (judges' verdicts
// are read by substring), no "topic:" (path summaries are found by it).
const thought = "Let me read the request carefully, keep every value exactly as it was stated, and follow the required output format."

// vary returns reply varied by one kind drawn from rng, and the kind.
func vary(reply string, shape byte, maxTokens int, rng *rand.Rand) (string, string) {
	if shape == 0 {
		return "<think>\n" + thought + "\n</think>\n\n" + reply, "reasoning"
	}
	kind := Noise[rng.IntN(len(Noise))]
	switch kind {
	case "reasoning":
		return "<think>\n" + thought + "\n</think>\n\n" + reply, kind
	case "fence":
		return "```json\n" + reply + "\n```", kind
	case "prose":
		return "Here is the JSON you asked for.\n\n" + reply + "\n\nI kept every value exactly as stated.", kind
	case "keys", "trailing-comma", "single-quotes":
		dec := json.NewDecoder(strings.NewReader(reply))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return reply, ""
		}
		e := encoder{rng: rng, shuffle: kind == "keys", extra: kind == "keys", trailing: kind == "trailing-comma", single: kind == "single-quotes"}
		e.value(v)
		return e.b.String(), kind
	case "truncate":
		w := openaifake.Tokens(reply)
		if len(w) < 2 {
			return "```json\n" + reply + "\n```", "fence"
		}
		keep := 1 + rng.IntN(len(w)-1)
		if pad := maxTokens - keep - 2; maxTokens > 0 && pad > 0 {
			// "<think>" and "</think>" are a token each, the padding one per word.
			return "<think>\n" + strings.Repeat("reasoning ", pad) + "\n</think>\n" + reply, kind
		}
		return strings.TrimSpace(strings.Join(w[:keep], "")), kind
	}
	return reply, ""
}

// encoder writes a decoded JSON value back with one variation.
type encoder struct {
	b        bytes.Buffer
	rng      *rand.Rand
	shuffle  bool // reorder object keys
	extra    bool // add a key the schema lacks
	trailing bool // comma before closing brackets
	single   bool // single-quoted strings
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v)+1)
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if e.shuffle {
			e.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		}
		e.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.b.WriteString(", ")
			}
			e.str(k)
			e.b.WriteString(": ")
			e.value(v[k])
		}
		if e.extra {
			if len(keys) > 0 {
				e.b.WriteString(", ")
			}
			e.str("confidence")
			e.b.WriteString(": 0.9")
		}
		if e.trailing && len(keys) > 0 {
			e.b.WriteByte(',')
		}
		e.b.WriteByte('}')
	case []any:
		e.b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				e.b.WriteString(", ")
			}
			e.value(x)
		}
		if e.trailing && len(v) > 0 {
			e.b.WriteByte(',')
		}
		e.b.WriteByte(']')
	case string:
		e.str(v)
	case json.Number:
		e.b.WriteString(v.String())
	case bool:
		e.b.WriteString(strconv.FormatBool(v))
	default:
		e.b.WriteString("null")
	}
}

func (e *encoder) str(s string) {
	if !e.single {
		b, _ := json.Marshal(s)
		e.b.Write(b)
		return
	}
	e.b.WriteByte('\'')
	e.b.WriteString(strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s))
	e.b.WriteByte('\'')
}
