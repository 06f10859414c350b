package arbormem

// Paper appendix D, the memory-write prompts through a chat model, each
// reply parsed robustly and repaired once.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/jsonx"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/text"
)

// chatOps implements Extractor, Auditor and TagPredictor with the paper's
// prompts (appendix D) through a chat model. Every JSON reply is parsed
// robustly (jsonx) and, when that fails, repaired once by asking the model
// again with the parse error; a reply that still fails is a BadReplyError.
type chatOps struct {
	client    llm.Client
	prompts   *prompt.Set
	maxTokens int
	metrics   *Metrics
	limits    ops.Limits
}

var (
	_ Extractor    = (*chatOps)(nil)
	_ Auditor      = (*chatOps)(nil)
	_ TagPredictor = (*chatOps)(nil)
)

// Name labels the chat-backed operations.
func (c *chatOps) Name() string { return "chat" }

// Heuristic is false: results come from the model.
func (c *chatOps) Heuristic() bool { return false }

// exchangeData is the template data of the per-interaction prompts.
type exchangeData struct {
	Time      string
	User      string
	Assistant string
	Exchange  string
	Ontology  string
}

func newExchangeData(in dialog.Interaction) exchangeData {
	return exchangeData{Time: dialog.FormatTime(in.Time), User: in.User(), Assistant: in.Assistant(), Exchange: turnLines(in), Ontology: ops.OntologyText()}
}

func (c *chatOps) request(name, text string) llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: text}}, Temperature: 0, MaxTokens: c.maxTokens, Purpose: name}
}

// text runs prompt name and returns the raw reply.
func (c *chatOps) text(ctx context.Context, name string, data any) (string, error) {
	body, err := c.prompts.Render(name, data)
	if err != nil {
		return "", err
	}
	c.metrics.ModelCalls.Add(1)
	resp, err := c.client.Chat(ctx, c.request(name, body))
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return resp.Content, nil
}

// json runs prompt name and decodes its JSON reply into v, with one repair
// retry (the model sees its reply and the parse error).
func (c *chatOps) json(ctx context.Context, name string, data any, v any) error {
	body, err := c.prompts.Render(name, data)
	if err != nil {
		return err
	}
	req := c.request(name, body)
	c.metrics.ModelCalls.Add(1)
	resp, err := c.client.Chat(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	perr := decodeReply(resp.Content, v)
	if perr == nil {
		return nil
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: "assistant", Content: resp.Content},
		llm.Message{Role: "user", Content: "Your reply could not be parsed as the requested JSON (" + perr.Error() +
			"). Reply again with ONLY the complete, strictly valid JSON in the required schema: no prose, no markdown fences, no trailing commas."})
	req.Purpose = name + ":repair"
	c.metrics.ModelCalls.Add(1)
	resp2, err := c.client.Chat(ctx, req)
	if err != nil {
		return fmt.Errorf("%s repair: %w", name, err)
	}
	if err := decodeReply(resp2.Content, v); err != nil {
		return &BadReplyError{Op: name, Reply: resp2.Content, Err: err}
	}
	c.metrics.Repaired.Add(1)
	return nil
}

// decodeReply parses a model reply into v. A list target also accepts an
// object wrapping the list ({"facts": [...]}) or a single element object.
func decodeReply(text string, v any) error {
	raw, err := jsonx.Extract(text)
	if err != nil {
		return err
	}
	raw = strings.TrimSpace(raw)
	isList := false
	switch v.(type) {
	case *[]factJSON, *[]verdictJSON, *[]artifactJSON, *[]eventJSON, *[]stateJSON, *flexStrings:
		isList = true
	}
	if isList && strings.HasPrefix(raw, "{") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &obj); err == nil {
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			// deterministic: first array-valued key in sorted order
			sort.Strings(keys)
			wrapped := false
			for _, k := range keys {
				if b := bytes.TrimSpace(obj[k]); len(b) > 0 && b[0] == '[' {
					raw = string(b)
					wrapped = true
					break
				}
			}
			if !wrapped {
				raw = "[" + raw + "]"
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// flexString accepts a JSON string, number, boolean or null.
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*f = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	if b[0] == '[' || b[0] == '{' {
		var any []flexString
		if b[0] == '[' && json.Unmarshal(b, &any) == nil {
			parts := make([]string, len(any))
			for i, a := range any {
				parts[i] = string(a)
			}
			*f = flexString(strings.Join(parts, ", "))
			return nil
		}
		return fmt.Errorf("expected a string, got %.40s", b)
	}
	*f = flexString(string(b))
	return nil
}

// flexStrings accepts a list of strings/numbers, a single string, or null.
type flexStrings []string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexStrings) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*f = nil
		return nil
	}
	if b[0] == '[' {
		var xs []flexString
		if err := json.Unmarshal(b, &xs); err != nil {
			return err
		}
		out := make([]string, 0, len(xs))
		for _, x := range xs {
			if s := strings.TrimSpace(string(x)); s != "" {
				out = append(out, s)
			}
		}
		*f = out
		return nil
	}
	var s flexString
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if str := strings.TrimSpace(string(s)); str != "" {
		*f = []string{str}
	}
	return nil
}

// flexFloat accepts a number, a numeric string ("2", "$12.50", "1/3"), or
// null (nil).
type flexFloat struct{ v *float64 }

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexFloat) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	var s string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	if x, ok := ops.ParseNumber(s); ok {
		f.v = &x
	}
	return nil
}

// flexInt accepts a number, a numeric string, or null (0).
type flexInt int

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	var x flexFloat
	if err := x.UnmarshalJSON(b); err != nil {
		return err
	}
	if x.v != nil && *x.v > 0 && *x.v < 1e6 {
		*f = flexInt(int(*x.v))
	}
	return nil
}

// flexBool accepts true/false, "true"/"yes"/"no", 0/1, or null (false).
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexBool) UnmarshalJSON(b []byte) error {
	s := strings.ToLower(strings.Trim(strings.TrimSpace(string(b)), `"`))
	*f = flexBool(s == "true" || s == "yes" || s == "1" || s == "y")
	return nil
}

type nodeMetaJSON struct {
	Summary  flexString  `json:"summary"`
	Entities flexStrings `json:"entities"`
}

type factJSON struct {
	Fact     flexString  `json:"fact"`
	Tag      flexString  `json:"attribute_tag"`
	Entities flexStrings `json:"entities"`
}

type verdictJSON struct {
	PairID  flexString `json:"pair_id"`
	Verdict flexString `json:"verdict"`
}

type artifactJSON struct {
	Type     flexString  `json:"artifact_type"`
	Topic    flexString  `json:"topic"`
	Item     flexString  `json:"item_text"`
	Ordinal  flexInt     `json:"ordinal"`
	Entities flexStrings `json:"entities"`
	Evidence flexString  `json:"evidence_text"`
}

type eventJSON struct {
	Type            flexString  `json:"event_type"`
	Subject         flexString  `json:"subject"`
	Object          flexString  `json:"object"`
	Value           flexString  `json:"value"`
	Quantity        flexFloat   `json:"quantity"`
	Unit            flexString  `json:"unit"`
	CanonicalAction flexString  `json:"canonical_action"`
	CanonicalObject flexString  `json:"canonical_object"`
	DateText        flexString  `json:"date_text"`
	NormalizedDate  flexString  `json:"normalized_date"`
	Negated         flexBool    `json:"is_negated"`
	Countable       flexBool    `json:"countable"`
	Entities        flexStrings `json:"entities"`
	Evidence        flexString  `json:"evidence_text"`
}

type stateJSON struct {
	Key      flexString  `json:"key"`
	Value    flexString  `json:"value"`
	Tag      flexString  `json:"attribute_tag"`
	Entities flexStrings `json:"entities"`
	Evidence flexString  `json:"evidence_text"`
}

// NodeMetadata runs node_metadata.
func (c *chatOps) NodeMetadata(ctx context.Context, in dialog.Interaction) (NodeMeta, error) {
	var r nodeMetaJSON
	if err := c.json(ctx, "node_metadata", newExchangeData(in), &r); err != nil {
		return NodeMeta{}, err
	}
	m := ops.SanitizeMeta(NodeMeta{Summary: string(r.Summary), Entities: r.Entities}, c.limits)
	if m.Summary == "" {
		return NodeMeta{}, &BadReplyError{Op: "node_metadata", Err: fmt.Errorf("empty summary")}
	}
	return m, nil
}

// pathData is path_evolution's template data.
type pathData struct {
	PrevPathSummary string
	CurrentSummary  string
}

// PathSummary runs path_evolution; the reply is plain text.
func (c *chatOps) PathSummary(ctx context.Context, prev string, cur NodeMeta, in dialog.Interaction) (string, error) {
	if prev == "" {
		prev = "(none: this interaction starts a new branch)"
	}
	out, err := c.text(ctx, "path_evolution", pathData{PrevPathSummary: prev, CurrentSummary: cur.Summary})
	if err != nil {
		return "", err
	}
	s := c.limits.ClipPathSummary(cleanPathSummary(out))
	if s == "" {
		return "", &BadReplyError{Op: "path_evolution", Reply: out, Err: fmt.Errorf("empty path summary")}
	}
	return s, nil
}

// cleanPathSummary keeps the "Topic: … | Progress: …" line of a reply, or
// the reply's first non-empty line, on one line (the caller clips it to
// arbormem.path_summary_chars).
func cleanPathSummary(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`\""))
	var first string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "`\"*"))
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		if strings.Contains(strings.ToLower(line), "topic:") {
			first = line
			break
		}
	}
	return text.OneLine(first)
}

// Facts runs atomic_fact_miner.
func (c *chatOps) Facts(ctx context.Context, in dialog.Interaction) ([]FactDraft, error) {
	var r []factJSON
	if err := c.json(ctx, "atomic_fact_miner", newExchangeData(in), &r); err != nil {
		return nil, err
	}
	out := make([]FactDraft, 0, len(r))
	for _, f := range r {
		out = append(out, FactDraft{Fact: string(f.Fact), Tag: string(f.Tag), Entities: f.Entities})
	}
	return ops.SanitizeFacts(out, c.limits), nil
}

// Artifacts runs assistant_artifact_miner.
func (c *chatOps) Artifacts(ctx context.Context, in dialog.Interaction) ([]Artifact, error) {
	var r []artifactJSON
	if err := c.json(ctx, "assistant_artifact_miner", newExchangeData(in), &r); err != nil {
		return nil, err
	}
	out := make([]Artifact, 0, len(r))
	for _, a := range r {
		out = append(out, Artifact{Type: string(a.Type), Topic: string(a.Topic), Item: string(a.Item), Ordinal: int(a.Ordinal),
			Entities: a.Entities, Evidence: string(a.Evidence)})
	}
	return ops.SanitizeArtifacts(out), nil
}

// Events runs event_miner.
func (c *chatOps) Events(ctx context.Context, in dialog.Interaction) ([]Event, error) {
	var r []eventJSON
	if err := c.json(ctx, "event_miner", newExchangeData(in), &r); err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(r))
	for _, e := range r {
		out = append(out, Event{Type: string(e.Type), Subject: string(e.Subject), Object: string(e.Object), Value: string(e.Value),
			Quantity: e.Quantity.v, Unit: string(e.Unit), CanonicalAction: string(e.CanonicalAction), CanonicalObject: string(e.CanonicalObject),
			DateText: string(e.DateText), NormalizedDate: string(e.NormalizedDate), Negated: bool(e.Negated), Countable: bool(e.Countable),
			Entities: e.Entities, Evidence: string(e.Evidence)})
	}
	return ops.SanitizeEvents(out), nil
}

// States runs state_slot_miner.
func (c *chatOps) States(ctx context.Context, in dialog.Interaction) ([]State, error) {
	var r []stateJSON
	if err := c.json(ctx, "state_slot_miner", newExchangeData(in), &r); err != nil {
		return nil, err
	}
	out := make([]State, 0, len(r))
	for _, s := range r {
		out = append(out, State{Key: string(s.Key), Value: string(s.Value), Tag: string(s.Tag), Entities: s.Entities, Evidence: string(s.Evidence)})
	}
	return ops.SanitizeStates(out), nil
}

// auditData is fact_collision_auditor_batch's template data.
type auditData struct{ PairsJSON string }

// Audit runs fact_collision_auditor_batch over all pairs in one call.
func (c *chatOps) Audit(ctx context.Context, pairs []AuditPair) ([]bool, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	pj, err := json.MarshalIndent(pairs, "", "  ")
	if err != nil {
		return nil, err
	}
	var r []verdictJSON
	if err := c.json(ctx, "fact_collision_auditor_batch", auditData{PairsJSON: string(pj)}, &r); err != nil {
		return nil, err
	}
	return verdicts(pairs, r), nil
}

// verdicts maps replies to pairs by pair_id, falling back to position; a
// missing or unknown verdict counts as INDEPENDENT (the old fact stays current).
func verdicts(pairs []AuditPair, r []verdictJSON) []bool {
	out := make([]bool, len(pairs))
	byID := map[string]int{}
	for i, p := range pairs {
		byID[p.ID] = i
	}
	for pos, v := range r {
		i, ok := byID[strings.TrimSpace(string(v.PairID))]
		if !ok {
			if string(v.PairID) != "" || pos >= len(pairs) {
				continue
			}
			i = pos
		}
		out[i] = strings.Contains(strings.ToUpper(string(v.Verdict)), "CONFLICT")
	}
	return out
}

// tagData is attribute_tag_predictor's template data.
type tagData struct {
	Ontology string
	Query    string
}

// PredictTags runs attribute_tag_predictor.
func (c *chatOps) PredictTags(ctx context.Context, query string) ([]string, error) {
	var r flexStrings
	if err := c.json(ctx, "attribute_tag_predictor", tagData{Ontology: ops.OntologyShortText(), Query: query}, &r); err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range r {
		if n := ops.NormalizeTag(t); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
			if len(out) == ops.MaxPredictedTags {
				break
			}
		}
	}
	return out, nil
}
