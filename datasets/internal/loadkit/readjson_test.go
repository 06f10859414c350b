package loadkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadJSONFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string
		limit         int64
		want          string // "" = read whole
	}{
		{"object", `{"a": 1}`, 100, ""},
		{"leading space", "\n\t {\"a\": 1}", 100, ""},
		{"zero bytes", "\x00\x00\x00", 100, "byte 0 is 0x00"},
		{"csv", "question,answer\n", 100, `byte 0 is "q"`},
		{"space then binary", "  \xff", 100, "byte 2 is 0xff"},
		{"empty", "", 100, "empty file"},
		{"only space", "   ", 100, "empty file"},
		{"too large", `["` + strings.Repeat("x", 200) + `"]`, 100, "larger than 100 bytes"},
		{"exactly the limit", `["` + strings.Repeat("x", 96) + `"]`, 100, ""},
		{"space past the limit", strings.Repeat(" ", 20), 10, "white space"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := ReadJSONFile(path, c.limit)
			if c.want == "" {
				if err != nil || string(b) != c.content {
					t.Fatalf("got %q, %v", b, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("want an error naming the file and saying %q, got %v", c.want, err)
			}
		})
	}
	if _, err := ReadJSONFile(filepath.Join(dir, "missing"), 100); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadJSONFileEndless: a device that never ends is refused at byte 0,
// without reading it.
func TestReadJSONFileEndless(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	_, err := ReadJSONFile("/dev/zero", MaxWholeFile)
	if err == nil || !strings.Contains(err.Error(), "byte 0 is 0x00") {
		t.Fatalf("/dev/zero: %v", err)
	}
}

// FuzzReadJSONFile: a file is returned whole, byte for byte, or refused
// with an error naming it; nothing panics.
func FuzzReadJSONFile(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, " \n[1]", "\x00", "", "   ", "true", "-1", "q,a"} {
		f.Add([]byte(s), int64(16))
	}
	f.Fuzz(func(t *testing.T, content []byte, limit int64) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadJSONFile(path, limit)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if string(b) != string(content) || int64(len(b)) > limit {
			t.Fatalf("read %q of %q (limit %d)", b, content, limit)
		}
	})
}
