package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogAppendResumeAndRepair(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "samples.jsonl")
	key := func(s Sample) string { return s.Key() }
	l, recs, err := OpenLog(p, key)
	if err != nil || len(recs) != 0 {
		t.Fatalf("open empty: %v %d", err, len(recs))
	}
	for _, q := range []string{"q1", "q2", "q1"} {
		if _, err := l.Append(Sample{Episode: "e", Question: q, System: "bm25", Budget: 1024}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Simulate a writer killed mid-line.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"episode":"e","question":"q3","sys`)
	f.Close()

	l, recs, err = OpenLog(p, key)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if len(recs) != 2 {
		t.Fatalf("want 2 records (duplicate key skipped, torn line dropped), got %d", len(recs))
	}
	if l.Repaired == 0 {
		t.Fatal("torn line not reported as repaired")
	}
	if !l.Has(Sample{Episode: "e", Question: "q2", System: "bm25", Budget: 1024}.Key()) {
		t.Fatal("resume key missing")
	}
	if wrote, _ := l.Append(Sample{Episode: "e", Question: "q3", System: "bm25", Budget: 1024}); !wrote {
		t.Fatal("q3 should be written after repair")
	}
	l.Close()
	b, _ := os.ReadFile(p)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Fatalf("want 3 lines, got %d:\n%s", n, b)
	}
	if _, err := ReadLog[Sample](p); err != nil {
		t.Fatal(err)
	}
}

func TestLogCorruptMiddleLineIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte("{\"episode\":\"a\"}\nnot json\n{\"episode\":\"b\"}\n"), 0o644)
	_, _, err := OpenLog(p, func(s Sample) string { return s.Key() })
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("want error naming line 2, got %v", err)
	}
}

func FuzzReadLog(f *testing.F) {
	f.Add([]byte("{\"episode\":\"a\"}\n{\"episode\":"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(p, data, 0o644)
		_, _ = ReadLog[Sample](p)
	})
}

func TestWriteFileAtomicIsWorldReadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "f.json")
	if err := WriteFileAtomic(p, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestLogAppendNew: a batch writes each key not yet recorded once, in
// order, and leaves out keys recorded before or earlier in the batch.
func TestLogAppendNew(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bundle-texts.jsonl")
	l, _, err := OpenLog(p, BundleText.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(BundleText{Ref: "a", Text: "first a"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		batch []BundleText
		wrote int
	}{
		{nil, 0},
		{[]BundleText{{Ref: "a", Text: "again"}}, 0},
		{[]BundleText{{Ref: "b", Text: "b"}, {Ref: "a", Text: "again"}, {Ref: "c", Text: "c"}, {Ref: "b", Text: "b again"}}, 2},
		{[]BundleText{{Ref: "c", Text: "c again"}, {Ref: "d", Text: "d\nwith \"quotes\""}}, 1},
	} {
		n, err := l.AppendNew(c.batch)
		if err != nil || n != c.wrote {
			t.Fatalf("AppendNew(%v) = %d, %v; want %d written", c.batch, n, err, c.wrote)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadLog[BundleText](p)
	if err != nil {
		t.Fatal(err)
	}
	want := []BundleText{{"a", "first a"}, {"b", "b"}, {"c", "c"}, {"d", "d\nwith \"quotes\""}}
	if len(recs) != len(want) {
		t.Fatalf("log holds %v, want %v", recs, want)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Fatalf("log holds %v, want %v", recs, want)
		}
	}
}
