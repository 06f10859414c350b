package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/internal/realdeps"
)

// TestPage opens the page in headless Chromium on a scope of two threads:
// the scope is listed, every node is drawn in its branch's colour with its
// summary on hover, and the node a recall (#q=) localizes to is circled.
func TestPage(t *testing.T) {
	bin := realdeps.Chromium(t)
	_, hs := newServer(t, testConfig(t, ""), t.TempDir())
	for _, text := range interleaved[:4] {
		turn(t, hs.URL, "alice", text)
	}
	resp, err := http.Get(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	dom := realdeps.Browse(t, bin, hs.URL+"/#scope=alice&q="+"Back to the Lisbon trip: what's the budget?", "")
	dom, _, _ = strings.Cut(dom, "<script>") // the markup, not the script's source
	for _, want := range []string{`href="#scope=alice"`, `id="node-t000001"`, `id="node-t000004"`, "<title>t000001 — ", `class="node chosen"`, "Recall: localized to t000002"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(dom, `class="edge"`); n != 2 {
		t.Errorf("%d parent edges drawn, want 2 (two threads of two turns)", n)
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
}
