package branchmemeval

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/arbor-eval/arbor/pkg/jsonx"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/text"
)

// ChatRewriter is the optional model verbalizer (appendix B.2: "A language
// model then verbalizes the non-question turns"). It rewrites the template
// realization of every non-question turn with a chat model and keeps a
// rewrite only when it still carries the turn's planned values, names no
// other planned value, and (for lists) keeps the numbered items. Question
// turns and canonical responses are never sent to the model.
type ChatRewriter struct {
	Client  llm.Client
	Prompts *prompt.Set
	// Model labels the file's verbalizer field ("chat:<model>").
	Model       string
	Temperature float64
	MaxTokens   int
	// Workers bounds requests in flight (default 4).
	Workers int
}

// RewriteStats counts what happened to the turns.
type RewriteStats struct {
	Rewritten int `json:"rewritten"`
	// Kept counts turns whose rewrite broke a rule, so the template text
	// stayed.
	Kept   int      `json:"kept"`
	Errors []string `json:"errors,omitempty"`
}

type rewriteJob struct {
	s, t int
	data map[string]any
	keep []string
	ban  []string
	list bool
}

// Rewrite returns a copy of f with non-question turns rewritten, validated
// again afterwards (appendix B.2's checks apply to the final text).
func (c *ChatRewriter) Rewrite(ctx context.Context, f *File) (*File, RewriteStats, error) {
	var st RewriteStats
	if c.Client == nil {
		return nil, st, fmt.Errorf("chat verbalizer: no chat model configured (set models.chat.endpoints)")
	}
	ps := c.Prompts
	if ps == nil {
		ps = prompt.Default()
	}
	out := *f
	out.Sessions = make([]Session, len(f.Sessions))
	var jobs []rewriteJob
	for si := range f.Sessions {
		s := f.Sessions[si]
		s.Turns = append([]Turn(nil), s.Turns...)
		out.Sessions[si] = s
		notes := f.Notes(s.ID)
		if notes == nil {
			return nil, st, fmt.Errorf("chat verbalizer: session %s has no annotations", s.ID)
		}
		var planned []string
		for _, tn := range notes.Turns {
			planned = append(planned, tn.Values...)
		}
		for _, b := range notes.Branches {
			if b.Anchor != "" {
				planned = append(planned, b.Anchor)
			}
		}
		for ti, t := range s.Turns {
			if t.Question != nil || ti >= len(notes.Turns) {
				continue
			}
			tn := notes.Turns[ti]
			br := branchNote(notes, tn.Branch)
			keep := append([]string(nil), tn.Values...)
			hay := text.NormalizeAnswer(t.User + "\n" + t.Assistant)
			if br.Anchor != "" && text.ContainsAnswer(text.NormalizeAnswer(t.User), text.NormalizeAnswer(br.Anchor)) {
				keep = append(keep, br.Anchor)
			}
			var ban []string
			for _, v := range planned {
				if !text.ContainsAnswer(hay, text.NormalizeAnswer(v)) {
					ban = append(ban, v)
				}
			}
			jobs = append(jobs, rewriteJob{s: si, t: ti, keep: keep, ban: ban, list: tn.Act == actList, data: map[string]any{
				"Topic": br.Title, "Anchor": br.Anchor, "Act": actDescription[tn.Act],
				"User": t.User, "Assistant": t.Assistant, "Keep": keep, "KeepList": tn.Act == actList,
				"Words": words(t.Assistant),
			}})
		}
	}
	type result struct {
		user, assistant string
		ok              bool
		err             string
	}
	results := make([]result, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	limit := c.Workers
	if limit <= 0 {
		limit = 4
	}
	g.SetLimit(limit)
	for i := range jobs {
		g.Go(func() error {
			j := jobs[i]
			msg, err := ps.Render("bme_verbalize", j.data)
			if err != nil {
				return err
			}
			maxTok := c.MaxTokens
			if maxTok == 0 {
				maxTok = 2048
			}
			resp, err := c.Client.Chat(gctx, llm.ChatRequest{
				Messages:    []llm.Message{{Role: "user", Content: msg}},
				Temperature: c.Temperature, MaxTokens: maxTok, ResponseFormat: "json_object",
				Purpose: "bme_verbalize",
			})
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				results[i].err = err.Error()
				return nil
			}
			var got struct {
				User      string `json:"user"`
				Assistant string `json:"assistant"`
			}
			if err := jsonx.Unmarshal(resp.Content, &got); err != nil {
				results[i].err = err.Error()
				return nil
			}
			orig := f.Sessions[j.s].Turns[j.t]
			if reason := checkRewrite(orig, got.User, got.Assistant, j); reason != "" {
				results[i].err = reason
				return nil
			}
			results[i] = result{user: strings.TrimSpace(got.User), assistant: strings.TrimSpace(got.Assistant), ok: true}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, st, fmt.Errorf("chat verbalizer: %w", err)
	}
	for i, res := range results {
		j := jobs[i]
		if !res.ok {
			st.Kept++
			st.Errors = append(st.Errors, fmt.Sprintf("%s: %s", f.Sessions[j.s].Turns[j.t].ID, res.err))
			continue
		}
		st.Rewritten++
		t := &out.Sessions[j.s].Turns[j.t]
		t.User, t.Assistant = res.user, res.assistant
	}
	out.Verbalizer = "chat:" + c.Model
	if issues := Validate(&out); len(issues) > 0 {
		return nil, st, fmt.Errorf("chat verbalizer: rewritten set fails validation: %w", issuesError(issues))
	}
	return &out, st, nil
}

// checkRewrite returns why a rewrite is unusable, or "".
func checkRewrite(orig Turn, user, assistant string, j rewriteJob) string {
	if strings.TrimSpace(user) == "" || strings.TrimSpace(assistant) == "" {
		return "empty message"
	}
	hay := text.NormalizeAnswer(user + "\n" + assistant)
	for _, v := range j.keep {
		if !text.ContainsAnswer(hay, text.NormalizeAnswer(v)) {
			return fmt.Sprintf("dropped planned value %q", v)
		}
	}
	for _, v := range j.ban {
		if text.ContainsAnswer(hay, text.NormalizeAnswer(v)) {
			return fmt.Sprintf("introduced value %q planned for another turn", v)
		}
	}
	if j.list {
		for n := 1; ; n++ {
			want := listItem1(orig.Assistant, n)
			if want == "" {
				break
			}
			if listItem1(assistant, n) != want {
				return fmt.Sprintf("list item %d changed", n)
			}
		}
	}
	return ""
}

func branchNote(n *SessionNotes, id string) BranchNote {
	for _, b := range n.Branches {
		if b.ID == id {
			return b
		}
	}
	return BranchNote{ID: id}
}

var actDescription = map[string]string{
	actIntro:     "the user opens this topic for the first time",
	actSet:       "the user states a decided detail and the assistant confirms it",
	actUpdate:    "the user changes a detail decided earlier and the assistant confirms the new value",
	actList:      "the user asks for a ranked list and the assistant gives it",
	actLink:      "the user mentions a detail that matters for planning and the assistant notes it",
	actFiller:    "the user asks for advice on the topic",
	actSmalltalk: "the user makes small talk and the assistant responds kindly",
	actResume:    "the user comes back to this topic after talking about other things",
}
