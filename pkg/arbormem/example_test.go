package arbormem_test

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// An offline ArborMem (rule-based memory operations, hashed embeddings, a
// lexical reranker, exact Qwen3 token counts): three interactions on two
// topics, then a question about the first topic is localized in its branch.
// With a chat model, set Deps.Chat (and a model embedder and reranker) and
// the same calls run the paper's prompts.
func Example() {
	mem, err := arbormem.New(config.DefaultArborMem(), arbormem.Deps{
		Embed:  local.NewEmbedder(1024),
		Rerank: local.NewReranker(),
		Tokens: tokens.Default(),
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	at := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id, user, assistant string, after time.Duration) {
		in := dialog.Interaction{ID: id, Time: at.Add(after), Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Content: user}, {Role: dialog.RoleAssistant, Content: assistant}}}
		if err := mem.Commit(ctx, in); err != nil {
			panic(err)
		}
	}
	turn("t1", "I'm planning a trip to Lisbon in May; the budget is $2,400.", "Great, Lisbon in May it is.", 0)
	turn("t2", "On another note, my car's brakes squeal and the garage quoted $380.", "Worth fixing soon.", time.Minute)
	turn("t3", "For the car, the garage can take it on Thursday.", "Thursday works.", 2*time.Minute)

	b, err := mem.Recall(ctx, memory.Query{ID: "q1", Text: "Back to the Lisbon trip: what's the budget again?",
		Time: at.Add(3 * time.Minute), Budget: 2048})
	if err != nil {
		panic(err)
	}
	fmt.Println("parent:", b.Trace.Parent)
	parent, _ := mem.ParentOf("t3")
	fmt.Println("t3 continues:", parent)
	// Output:
	// parent: t1
	// t3 continues: t2
}
