package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveStaleTemps: the temporary files of writes killed mid-way are
// removed once old; a recent one (a live writer's) and every other file
// stay.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	past := time.Now().Add(-2 * StaleTempAge)
	files := []struct {
		name   string
		old    bool
		remove bool
	}{
		{".main.md.123456", true, true},
		{".manifest.json.42", true, true},
		{".main.md.987", false, false}, // a live write
		{"main.md", true, false},
		{".lock", true, false},
		{".cache", true, false},
		{".main.md.12a", true, false},
		{"..1", true, false},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(p, past, past); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := RemoveStaleTemps(dir); n != 2 {
		t.Errorf("removed %d files, want 2", n)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if gone := os.IsNotExist(err); gone != f.remove {
			t.Errorf("%s: removed %v, want %v", f.name, gone, f.remove)
		}
	}
	if n := RemoveStaleTemps(filepath.Join(dir, "missing")); n != 0 {
		t.Errorf("a missing folder: %d removed", n)
	}
}
