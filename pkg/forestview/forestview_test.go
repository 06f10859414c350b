package forestview

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/internal/realdeps"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// twoThreads is an offline memory of two threads of two turns; the second
// turn's user text tries to end the page's script early.
func twoThreads(t *testing.T) *arbormem.System {
	t.Helper()
	sys, err := arbormem.New(config.DefaultArborMem(), arbormem.Deps{Embed: local.NewEmbedder(256), Rerank: local.NewReranker(), Tokens: tokens.Default()})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	for i, u := range []string{"I'm planning a trip to Lisbon; the budget is $2,400.", "For the Lisbon trip, book a hotel near Alfama </script><b>x</b>.",
		"On another note, my car's brakes squeal; the garage quoted $380.", "The garage can take the car on Thursday."} {
		in := dialog.Interaction{ID: "t" + string(rune('1'+i)), Time: at.Add(time.Duration(i) * time.Minute),
			Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: u}, {Role: dialog.RoleAssistant, Content: "Noted."}}}
		if err := sys.Commit(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	return sys
}

// TestOf: the view lists every node with its parent and root, the roots and
// the active node.
func TestOf(t *testing.T) {
	v := Of("s", twoThreads(t))
	if len(v.Nodes) != 4 || len(v.Roots) != 2 || v.Active != "t4" || !v.Heuristic {
		t.Fatalf("view %+v", v)
	}
	if v.Nodes[1].Parent != "t1" || v.Nodes[3].Parent != "t3" || v.Nodes[3].Root != "t3" || v.Nodes[0].User == "" {
		t.Errorf("nodes %+v", v.Nodes)
	}
}

// TestWritePage: the standalone page keeps its data inside its script
// (a "</script>" in a turn cannot end it) and, in headless Chromium, draws
// every node in its branch with the chosen one circled.
func TestWritePage(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePage(&buf, "forest <of> s", Of("s", twoThreads(t)), "t2", "Localized to t2."); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Count(page, "</script>") != 1 || !strings.Contains(page, "forest &lt;of&gt; s") {
		t.Fatalf("the page's data or title is not escaped:\n%s", page)
	}
	path := filepath.Join(t.TempDir(), "forest.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := realdeps.Chromium(t)
	dom, _, _ := strings.Cut(realdeps.Browse(t, bin, "file://"+path, ""), "<script>")
	for _, want := range []string{`id="node-t1"`, `id="node-t4"`, `class="node chosen"`, "Localized to t2."} {
		if !strings.Contains(dom, want) {
			t.Errorf("the drawn page lacks %q:\n%s", want, dom)
		}
	}
	if n := strings.Count(dom, `class="edge"`); n != 2 {
		t.Errorf("%d edges, want 2", n)
	}
}
