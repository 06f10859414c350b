package arbormem

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

var persistQueries = []string{
	"What hotel did I book in Lisbon?",
	"What is the current budget for the Lisbon trip?",
	"What was the third book suggested for the book club?",
	"Where do I work now and when do I start?",
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := newTestSystem(t)
	mustCommit(t, a, memorytest.Conversation()...)
	dir := filepath.Join(t.TempDir(), "snap")
	if err := a.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	b := newTestSystem(t)
	mustCommit(t, b, inter("junk", "state to be replaced", "ok"))
	if err := b.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.forest.Lookup("junk"); ok {
		t.Error("Load must replace the state, not merge into it")
	}
	for _, id := range []string{"m-01", "m-10", "m-19"} {
		pa, _ := a.ParentOf(id)
		pb, ok := b.ParentOf(id)
		if !ok || pa != pb {
			t.Errorf("ParentOf(%s): %q after load, %q before", id, pb, pa)
		}
	}
	for _, q := range persistQueries {
		for _, budget := range []int{300, 30968} {
			qq := memory.Query{ID: "q", Text: q, Budget: budget}
			ba, bb := mustRecall(t, a, qq), mustRecall(t, b, qq)
			if !reflect.DeepEqual(ba.Items, bb.Items) {
				t.Errorf("%q at %d: bundles differ after save/load:\n%+v\n%+v", q, budget, ba.Items, bb.Items)
			}
		}
	}
	// Saving the loaded state gives the same files.
	dir2 := filepath.Join(t.TempDir(), "snap2")
	if err := b.Save(ctx, dir2); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{snapshotState, snapshotVectors} {
		x, _ := os.ReadFile(filepath.Join(dir, f))
		y, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs after a load/save round trip", f)
		}
	}
	// The loaded instance keeps committing.
	mustCommit(t, b, inter("new", "Also, Marta prefers window seats.", "Noted."))
}

func TestLoadRejectsCorruptSnapshots(t *testing.T) {
	ctx := context.Background()
	a := newTestSystem(t)
	mustCommit(t, a, memorytest.Conversation()[:5]...)
	dir := t.TempDir()
	if err := a.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	state, _ := os.ReadFile(filepath.Join(dir, snapshotState))
	vecs, _ := os.ReadFile(filepath.Join(dir, snapshotVectors))
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(state, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	node := func(m map[string]any, i int) map[string]any {
		return m["forest"].(map[string]any)["nodes"].([]any)[i].(map[string]any)
	}
	for _, tc := range []struct {
		name        string
		state, vecs []byte
		want        string
	}{
		{"format", edit(func(m map[string]any) { m["format"] = "other" }), vecs, "format"},
		{"dim", edit(func(m map[string]any) { m["dim"] = 3 }), vecs, "dim 3"},
		{"parent", edit(func(m map[string]any) { node(m, 1)["parent"] = 7 }), vecs, "forest.nodes[1].parent"},
		{"seq", edit(func(m map[string]any) { node(m, 2)["seq"] = 0 }), vecs, "forest.nodes[2].seq"},
		{"fact node", edit(func(m map[string]any) {
			m["store"].(map[string]any)["facts"].([]any)[0].(map[string]any)["node"] = 99
		}), vecs, "store.facts[0].node"},
		{"truncated vectors", state, vecs[:len(vecs)-3], "vector"},
		{"bad magic", state, append([]byte("XXXX"), vecs[4:]...), "magic"},
		{"not json", []byte("{"), vecs, "state.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, snapshotState), tc.state, 0o644)
			os.WriteFile(filepath.Join(d, snapshotVectors), tc.vecs, 0o644)
			b := newTestSystem(t)
			mustCommit(t, b, inter("keep", "this state survives a failed load", "ok"))
			err := b.Load(ctx, d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want an error mentioning %q", err, tc.want)
			}
			if _, ok := b.forest.Lookup("keep"); !ok {
				t.Error("a failed load changed the state")
			}
		})
	}
}

// FuzzLoadState mutates state.json around a small valid snapshot (one
// short interaction): a large seed made the engine spend its time
// minimising instead of exploring (4 executions in 46 s).
func FuzzLoadState(f *testing.F) {
	small := func(_ *config.ArborMem, d *Deps) { d.Embed = hashEmbedder{dim: 8} }
	a := newTestSystem(f, small)
	mustCommit(f, a, inter("n1", "I moved to Porto.", "Noted."))
	dir := f.TempDir()
	if err := a.Save(context.Background(), dir); err != nil {
		f.Fatal(err)
	}
	state, _ := os.ReadFile(filepath.Join(dir, snapshotState))
	vecs, _ := os.ReadFile(filepath.Join(dir, snapshotVectors))
	f.Add(state)
	f.Add([]byte(`{"format":"arbormem-snapshot","version":2,"dim":8,"forest":{"nodes":[null],"roots":[0],"active":0},"store":{}}`))
	f.Add([]byte(`{"format":"arbormem-snapshot","version":2,"dim":8,"forest":{"nodes":[],"roots":[],"active":-1},"store":{},"records":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, snapshotState), data, 0o644)
		os.WriteFile(filepath.Join(d, snapshotVectors), vecs, 0o644)
		b := newTestSystem(t, small)
		if err := b.Load(context.Background(), d); err != nil {
			return
		}
		// A state that loads must be usable.
		if _, err := b.Recall(context.Background(), memory.Query{Text: "What hotel did I book?", Budget: 500}); err != nil {
			t.Fatalf("recall after load: %v", err)
		}
		_ = b.Commit(context.Background(), inter("fuzz-new", "Also, one more detail: 42 apples.", "ok"))
	})
}
