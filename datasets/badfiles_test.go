package datasets_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	_ "github.com/arbor-eval/arbor/datasets/longmemeval"
)

// TestBadFiles: every loader answers a broken file with one line that names
// the file and says what is wrong (and where, when there is a where), and
// never panics (docs/RELIABILITY.md).
func TestBadFiles(t *testing.T) {
	cases := []struct {
		name, content string
		dir           bool
		want          string // a fragment every benchmark's error must contain
	}{
		{name: "empty", content: "", want: ""},
		{name: "truncated", content: `[{"question_id": "q1", "sample_id": "c1", "haystack_sessions": [[{"role": "user", "con`, want: ""},
		{name: "wrong top level", content: `{"a": 1}`, want: ""}, // an object is BranchMemEval's top level: "unknown field"
		{name: "wrong field type", content: `[{"question_id": 5, "sample_id": 5}]`, want: "expected"},
		{name: "not JSON", content: "question,answer\nq,a\n", want: ""},
		{name: "directory", dir: true, want: ""},
	}
	for _, bench := range []string{"longmemeval", "locomo", "branchmemeval", "beam"} {
		for _, c := range cases {
			t.Run(bench+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "data.json")
				if bench == "beam" {
					// BEAM is a folder of chats; the broken file is one chat's.
					chat := filepath.Join(dir, "chats", "100K", "1")
					if err := os.MkdirAll(filepath.Join(chat, "probing_questions"), 0o755); err != nil {
						t.Fatal(err)
					}
					path = filepath.Join(chat, "chat.json")
				}
				if c.dir {
					if err := os.MkdirAll(path, 0o755); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
					t.Fatal(err)
				}
				data := path
				if bench == "beam" {
					data = filepath.Join(dir, "chats", "100K")
				}
				_, err := datasets.Load(context.Background(), bench, data, datasets.Options{})
				if err == nil {
					t.Fatal("a broken file loaded without an error")
				}
				msg := err.Error()
				if strings.Contains(msg, "\n") {
					t.Errorf("the error is not one line: %q", msg)
				}
				if !strings.Contains(msg, filepath.Base(filepath.Dir(path))) && !strings.Contains(msg, filepath.Base(path)) {
					t.Errorf("the error names neither the file nor its folder: %q", msg)
				}
				if !strings.Contains(msg, c.want) {
					t.Errorf("the error does not say %q: %q", c.want, msg)
				}
				if strings.Contains(msg, "struct {") || strings.Contains(msg, "json.RawMessage") {
					t.Errorf("the error shows Go internals: %q", msg)
				}
			})
		}
	}
}

// TestEndlessFile: a device that never ends (/dev/zero passed as --data) is
// refused by every single-file loader with one line, without being read
// into memory (BranchMemEval, which reads its file whole, read it until it
// was killed for memory).
func TestEndlessFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	for _, bench := range []string{"longmemeval", "locomo", "branchmemeval"} {
		t.Run(bench, func(t *testing.T) {
			_, err := datasets.Load(context.Background(), bench, "/dev/zero", datasets.Options{})
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "zero") {
				t.Fatalf("want one line naming /dev/zero, got %v", err)
			}
		})
	}
}
