package arbormem

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// scripted answers each memory-write prompt by the prompt's marker and the
// interaction it is about; "BAD" replies are unparseable on both tries.
type scripted struct {
	replies map[string]map[string][2]string // prompt → interaction marker → [first, repair]
}

var promptMarkers = map[string]string{
	"node_metadata":                "extract its metadata",
	"path_evolution":               "Mission Summary",
	"atomic_fact_miner":            "atomic facts",
	"fact_collision_auditor_batch": "OLD/NEW fact pairs",
	"assistant_artifact_miner":     "archive what the assistant produced",
	"event_miner":                  "events on a timeline",
	"state_slot_miner":             "changing state",
}

func (sc *scripted) reply(req openaifake.Request) string {
	first := req.Messages[0].Content
	repair := len(req.Messages) > 1
	for name, marker := range promptMarkers {
		if !strings.Contains(first, marker) {
			continue
		}
		for key, r := range sc.replies[name] {
			if key == "*" || strings.Contains(first, key) {
				if repair {
					return r[1]
				}
				return r[0]
			}
		}
		if name == "path_evolution" {
			return "Topic: travel | Progress: ongoing"
		}
		if name == "node_metadata" {
			return `{"summary": "an exchange", "entities": []}`
		}
		return "[]"
	}
	return "unexpected prompt"
}

func TestCommitPipelineWithScriptedModel(t *testing.T) {
	sc := &scripted{replies: map[string]map[string][2]string{
		"node_metadata": {
			"Volvo": {"garbage {{{", "still garbage"},
		},
		"path_evolution": {
			"Volvo": {"", ""},
		},
		"atomic_fact_miner": {
			"2,000 euros": {"```json\n[{\"fact\": \"User's Lisbon trip budget is 2,000 euros.\", \"attribute_tag\": \"2.5\", \"entities\": [\"Lisbon\"]},]\n```", ""},
			"Biscuit":     {"Here you go: [{fact: User lives in Porto", `[{"fact": "User lives in Porto.", "attribute_tag": "1.0", "entities": ["Porto"]}, {"fact": "User's dog is called Biscuit.", "attribute_tag": "5.0", "entities": ["Biscuit"]}]`},
			"2,500 euros": {`[{"fact": "User's Lisbon trip budget is 2,500 euros.", "attribute_tag": "2.5", "entities": ["Lisbon"]}]`, ""},
			"Volvo":       {"I cannot help with that.", "Sorry, no."},
		},
		"fact_collision_auditor_batch": {
			"*": {`[{"pair_id": "0", "verdict": "CONFLICT"}]`, ""},
		},
		"state_slot_miner": {
			"Biscuit": {`[{"key": "home_city", "value": "Porto", "attribute_tag": "1.0", "entities": ["Porto"], "evidence_text": "I live in Porto"}]`, ""},
		},
	}}
	srv := openaifake.New(openaifake.Options{Reply: sc.reply})
	defer srv.Close()
	chat := llm.NewChatClient(config.Endpoint{URL: srv.URL, Model: "fake-model"}, llm.NewHTTPClient())
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Chat = chat })
	if s.Heuristic() {
		t.Fatal("with a chat model the memory operations must not be heuristic")
	}
	mustCommit(t, s,
		inter("c1", "Our Lisbon trip budget is 2,000 euros.", "Noted."),
		inter("c2", "I live in Porto and my dog is called Biscuit.", "Nice."),
		inter("c3", "We raised the Lisbon trip budget to 2,500 euros.", "Updated."),
		inter("c4", "Broken replies everywhere for this one: my car is a Volvo.", "ok"),
	)
	if s.forest.Len() != 4 {
		t.Fatalf("%d nodes committed, want 4", s.forest.Len())
	}
	byText := map[string]*Fact{}
	for _, f := range s.store.Facts {
		byText[f.Text] = f
	}
	old, nw := byText["User's Lisbon trip budget is 2,000 euros."], byText["User's Lisbon trip budget is 2,500 euros."]
	if old == nil || nw == nil {
		t.Fatalf("budget facts missing; store: %v", factTexts(s))
	}
	if old.SupersededBy != nw.ID || nw.Current() == false || len(nw.Supersedes) != 1 {
		t.Errorf("the 2,000 fact must be superseded by the 2,500 one: %+v / %+v", old, nw)
	}
	for _, want := range []string{"User lives in Porto.", "User's dog is called Biscuit."} {
		f := byText[want]
		if f == nil || !f.Current() || f.Source != "c2" {
			t.Errorf("fact %q (from the repaired reply) missing, superseded or misattributed: %+v", want, f)
		}
	}
	var volvo bool
	for _, f := range s.store.Facts {
		if f.Source == "c4" && strings.Contains(f.Text, "Volvo") {
			volvo = true
		}
	}
	if !volvo {
		t.Errorf("the unparseable fact reply of c4 must fall back to the rule-based miner; store: %v", factTexts(s))
	}
	if n, ok := s.forest.Lookup("c4"); !ok || n.Summary == "" || n.PathSummary == "" {
		t.Errorf("c4 must be committed with fallback metadata: %+v", n)
	}
	m := s.Metrics()
	if m.Repaired != 1 || m.BadReplies != 3 || m.ModelErrors != 0 || m.Superseded != 1 || m.Commits != 4 {
		t.Errorf("metrics %+v, want repaired 1, bad replies 3 (c4: metadata, facts, path), no model errors, 1 superseded, 4 commits", m)
	}
	if st := s.store.stateByKey["home_city"]; len(st) != 1 || s.store.States[st[0]].Value != "Porto" {
		t.Errorf("state home_city missing: %+v", s.store.States)
	}
	b := mustRecall(t, s, memory.Query{ID: "q", Text: "What is the Lisbon trip budget now?", Budget: 4000})
	var facts, updates []string
	for _, it := range b.Items {
		switch it.Block {
		case memory.BlockFacts:
			facts = append(facts, it.Text)
		case memory.BlockUpdate:
			updates = append(updates, it.Text)
		}
	}
	if len(updates) != 1 || !strings.Contains(updates[0], "2,000") || !strings.Contains(updates[0], "2,500") {
		t.Errorf("update evidence %q, want one old -> new pair", updates)
	}
	if len(facts) == 0 || !strings.Contains(strings.Join(facts, "\n"), "2,500") {
		t.Errorf("facts %q lack the current budget", facts)
	}
}

func factTexts(s *System) []string {
	var out []string
	for _, f := range s.store.Facts {
		out = append(out, f.Source+": "+f.Text)
	}
	return out
}

// TestModelErrorsFallBack: a chat endpoint that fails every request still
// commits every interaction, counted as model errors.
func TestModelErrorsFallBack(t *testing.T) {
	srv := openaifake.New(openaifake.Options{FaultRate: 1, FaultKinds: []openaifake.Fault{openaifake.Status400}})
	defer srv.Close()
	chat := llm.NewChatClient(config.Endpoint{URL: srv.URL, Model: "fake-model"}, llm.NewHTTPClient())
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Chat = chat })
	mustCommit(t, s, inter("e1", "My budget is 300 dollars for the Lisbon trip.", "ok"))
	if s.forest.Len() != 1 || len(s.store.Facts) == 0 {
		t.Fatalf("interaction or its rule-based facts lost: %d nodes, facts %v", s.forest.Len(), factTexts(s))
	}
	if m := s.Metrics(); m.ModelErrors == 0 || m.BadReplies != 0 {
		t.Errorf("metrics %+v: want model errors counted, no bad replies", m)
	}
}

func TestCommitRejectsBadInput(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	if err := s.Commit(ctx, inter("", "x", "y")); err == nil {
		t.Error("an interaction without ID must be rejected")
	}
	mustCommit(t, s, inter("a", "hello there", "hi"))
	if err := s.Commit(ctx, inter("a", "again", "hi")); err == nil || !strings.Contains(err.Error(), "already committed") {
		t.Errorf("duplicate ID: err %v", err)
	}
}

// slowStructure answers every memory prompt as chainChat does (a new state
// value each turn), the artifact
// and event miners after slow and every other call after fast, and
// records when each purpose's calls started and ended.
type slowStructure struct {
	fast, slow time.Duration
	mu         sync.Mutex
	turn       int
	starts     map[string][]time.Time
	ends       map[string][]time.Time
}

func (m *slowStructure) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	m.mu.Lock()
	m.starts[req.Purpose] = append(m.starts[req.Purpose], time.Now())
	if req.Purpose == "node_metadata" {
		m.turn++
	}
	turn := m.turn
	m.mu.Unlock()
	wait := m.fast
	if req.Purpose == "assistant_artifact_miner" || req.Purpose == "event_miner" {
		wait = m.slow
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return llm.ChatResponse{}, ctx.Err()
	}
	reply := chainReplies[req.Purpose]
	if req.Purpose == "state_slot_miner" {
		// A new value each turn: the revision check has a pair to judge.
		reply = fmt.Sprintf(`[{"key": "beds", "value": "%d beds", "attribute_tag": "2.6", "entities": []}]`, turn)
	}
	m.mu.Lock()
	m.ends[req.Purpose] = append(m.ends[req.Purpose], time.Now())
	m.mu.Unlock()
	return llm.ChatResponse{Content: reply}, nil
}

// TestAuditStartsWithFactsAndStates: the collision and revision audit
// starts when the fact and state miners have answered, before slower
// extractors of round 1 (artifacts, events) have (§4.4: it judges only
// facts and states); it waited for the whole round before. The latencies
// only order the calls; no duration is asserted.
func TestAuditStartsWithFactsAndStates(t *testing.T) {
	m := &slowStructure{fast: 5 * time.Millisecond, slow: 300 * time.Millisecond,
		starts: map[string][]time.Time{}, ends: map[string][]time.Time{}}
	cfg := config.DefaultArborMem()
	cfg.Extractors = "chat"
	d := testDeps()
	d.Chat, d.Routing = m, RoutingPaper
	s, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.Commit(t.Context(), chainTurn(i)); err != nil {
			t.Fatal(err)
		}
	}
	if met := s.Metrics(); met.Fallbacks != 0 || met.BadReplies != 0 {
		t.Fatalf("every reply must parse: %+v", met)
	}
	audits := m.starts["fact_collision_auditor_batch"]
	if len(audits) == 0 {
		t.Fatal("no audit call: the test's facts and states made no pair to judge")
	}
	for _, at := range audits {
		// The audit of turn k starts after turn k's slow calls started,
		// and before the last of them ended.
		var slowEnd time.Time
		for _, p := range []string{"assistant_artifact_miner", "event_miner"} {
			for i, st := range m.starts[p] {
				if st.Before(at) && m.ends[p][i].After(slowEnd) {
					slowEnd = m.ends[p][i]
				}
			}
		}
		if !at.Before(slowEnd) {
			t.Errorf("an audit started at %v, after round 1's slow extractors ended (%v): it waited for them", at, slowEnd)
		}
	}
}
