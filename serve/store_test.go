package serve

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// TestBoltStore: interactions come back in order after the snapshot they
// follow, scopes are listed and forgotten, and a reopened file holds it all.
func TestBoltStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	st, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	in := func(i int) dialog.Interaction {
		return dialog.Interaction{ID: fmt.Sprint("t", i), Time: time.Date(2025, 1, 1, 0, i, 0, 0, time.UTC),
			Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: fmt.Sprint("turn ", i)}}}
	}
	for i := 1; i <= 5; i++ {
		if seq, err := st.Append("a", in(i)); err != nil || seq != uint64(i) {
			t.Fatalf("append %d: seq %d, %v", i, seq, err)
		}
	}
	if _, err := st.Append("b", in(1)); err != nil {
		t.Fatal(err)
	}
	if err := st.PutSnapshot("a", Snapshot{Seq: 3, Files: map[string][]byte{"state.json": []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	snap, tail, err := st.Open("a")
	if err != nil || snap == nil || snap.Seq != 3 || string(snap.Files["state.json"]) != "{}" {
		t.Fatalf("snapshot %+v, %v", snap, err)
	}
	if want := []dialog.Interaction{in(4), in(5)}; !reflect.DeepEqual(tail, want) {
		t.Errorf("tail after the snapshot %+v, want %+v", tail, want)
	}
	if names, _ := st.Scopes(); !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("scopes %v", names)
	}
	if err := st.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if snap, tail, err := st.Open("a"); snap != nil || len(tail) != 0 || err != nil {
		t.Errorf("a forgotten scope opens as %+v %v %v", snap, tail, err)
	}
	if err := st.PutSnapshot("b", Snapshot{Seq: 1}); err == nil {
		t.Error("a snapshot without files was stored")
	}
}

// BenchmarkBoltAppend is the durable append rate of one scope's turns (each
// one fsynced transaction).
func BenchmarkBoltAppend(b *testing.B) {
	st, err := OpenBolt(filepath.Join(b.TempDir(), "memory.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	in := dialog.Interaction{ID: "t", Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: "A turn of about a hundred bytes, as a user message and a short reply would be."}}}
	for b.Loop() {
		if _, err := st.Append("bench", in); err != nil {
			b.Fatal(err)
		}
	}
}
