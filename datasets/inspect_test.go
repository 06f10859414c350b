package datasets_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/beam"
	"github.com/arbor-eval/arbor/datasets/internal/loadtest"
	"github.com/arbor-eval/arbor/datasets/locomo"
	_ "github.com/arbor-eval/arbor/datasets/longmemeval"
)

func TestInspectGolden(t *testing.T) {
	cases := []struct{ bench, path, golden string }{
		{"locomo", "locomo/testdata/locomo10.json", "locomo"},
		{"longmemeval", "longmemeval/testdata/longmemeval_s_cleaned.json", "longmemeval"},
		{"beam", "beam/testdata/chats/100K", "beam"},
	}
	for _, c := range cases {
		t.Run(c.bench, func(t *testing.T) {
			s, err := datasets.Inspect(context.Background(), c.bench, c.path, datasets.Options{Categories: []string{"all"}})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := s.Render(&b); err != nil {
				t.Fatal(err)
			}
			loadtest.Golden(t, filepath.Join("testdata", "inspect", c.golden+".golden.txt"), b.Bytes())
		})
	}
}

func TestInspectCounts(t *testing.T) {
	s, err := datasets.Inspect(context.Background(), "locomo", "locomo/testdata/locomo10.json", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Default LoCoMo set: categories 1–4 only.
	want := datasets.Summary{Episodes: 2, Sessions: 5, Interactions: 7, Turns: 13, Questions: 12, WithEvidence: 9}
	if s.Episodes != want.Episodes || s.Sessions != want.Sessions || s.Interactions != want.Interactions ||
		s.Turns != want.Turns || s.Questions != want.Questions || s.Abstentions != 0 || s.WithEvidence != want.WithEvidence {
		t.Errorf("summary %+v, want counts %+v", s, want)
	}
	if len(s.Categories) != 4 || s.Categories[0].Category != "1" || s.Categories[0].Name != "multi-hop" || s.Categories[0].Questions != 4 {
		t.Errorf("categories %+v", s.Categories)
	}
	b, _ := os.ReadFile("locomo/testdata/locomo10.json")
	sum := sha256.Sum256(b)
	if s.SHA256 != hex.EncodeToString(sum[:]) || s.Files != 1 || s.Bytes != int64(len(b)) {
		t.Errorf("hash %s files %d bytes %d", s.SHA256, s.Files, s.Bytes)
	}
	// The fixture carries the official name but not the official bytes.
	if s.Release != nil || !strings.Contains(s.Warning, "differs from the known official release of locomo10.json") {
		t.Errorf("release %v warning %q", s.Release, s.Warning)
	}
}

func TestInspectReleaseMatch(t *testing.T) {
	data, err := os.ReadFile("locomo/testdata/locomo10.json")
	if err != nil {
		t.Fatal(err)
	}
	// A private benchmark name keeps the registered release away from the
	// other tests.
	const bench = "locomo-release-test"
	datasets.Register(bench, locomo.Load)
	sum := sha256.Sum256(data)
	datasets.RegisterRelease(bench, datasets.Release{File: "fixture.json", SHA256: hex.EncodeToString(sum[:]), Source: "test"})
	p := loadtest.WriteFile(t, t.TempDir(), "renamed.json", data)
	s, err := datasets.Inspect(context.Background(), bench, p, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Release == nil || s.Release.File != "fixture.json" || s.Warning != "" {
		t.Errorf("release %v warning %q", s.Release, s.Warning)
	}
	p = loadtest.WriteFile(t, t.TempDir(), "other.json", append(data, ' '))
	if s, err = datasets.Inspect(context.Background(), bench, p, datasets.Options{}); err != nil {
		t.Fatal(err)
	}
	if s.Warning != "no known hash recorded for other.json" {
		t.Errorf("warning %q", s.Warning)
	}
}

func TestHashPathDirectory(t *testing.T) {
	dir := t.TempDir()
	loadtest.WriteFile(t, dir, "a/chat.json", []byte("[]"))
	loadtest.WriteFile(t, dir, "a/chat.pickle", []byte("ignored"))
	one, files, n, err := datasets.HashPath(dir)
	if err != nil || files != 1 || n != 2 {
		t.Fatalf("hash %s files %d bytes %d err %v", one, files, n, err)
	}
	loadtest.WriteFile(t, dir, "a/chat.json", []byte("[ ]"))
	two, _, _, err := datasets.HashPath(dir)
	if err != nil || two == one {
		t.Errorf("tree hash did not change with content: %s", two)
	}
}

func TestInspectErrors(t *testing.T) {
	_, err := datasets.Inspect(context.Background(), "nope", "x", datasets.Options{})
	loadtest.WantError(t, err, "unknown benchmark")
	_, err = datasets.Inspect(context.Background(), "locomo", "missing.json", datasets.Options{})
	loadtest.WantError(t, err, "missing.json")
}

// TestInspectSelectedStopsDecoding: --limit and --episodes count only the
// selected episodes, and decoding stops after the last one: a file whose
// tail is broken inspects fine when the selection ends before the break.
func TestInspectSelectedStopsDecoding(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("longmemeval/testdata/longmemeval_oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	full, err := datasets.Inspect(ctx, "longmemeval", "longmemeval/testdata/longmemeval_oracle.json", datasets.Options{})
	if err != nil || full.Episodes < 2 {
		t.Fatalf("fixture: %d episodes, %v", full.Episodes, err)
	}
	var eps []datasets.Episode
	if err := datasets.Each(ctx, "longmemeval", "longmemeval/testdata/longmemeval_oracle.json", datasets.Options{}, func(e datasets.Episode) error {
		eps = append(eps, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The fixture with its closing bracket replaced by a broken instance.
	body := bytes.TrimRight(src, " \n\t")
	broken := append(append([]byte{}, body[:len(body)-1]...), []byte(`, {"question_id": 7}]`)...)
	path := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(path, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := datasets.Inspect(ctx, "longmemeval", path, datasets.Options{}); err == nil {
		t.Fatal("the broken tail must fail a full inspection")
	}
	tests := []struct {
		name     string
		sel      datasets.Selection
		episodes int
		wantErr  string
	}{
		{"limit", datasets.Selection{Limit: 1}, 1, ""},
		{"episodes", datasets.Selection{Episodes: []string{eps[1].ID}}, 1, ""},
		{"episodes and limit", datasets.Selection{Episodes: []string{eps[0].ID, eps[1].ID}, Limit: 1}, 1, ""},
		{"unknown episode", datasets.Selection{Episodes: []string{"nope"}}, 0, "question_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := datasets.InspectSelected(ctx, "longmemeval", path, datasets.Options{}, tc.sel)
			if tc.wantErr != "" {
				loadtest.WantError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Episodes != tc.episodes || s.Selection == "" || s.SHA256 == "" {
				t.Fatalf("%+v", s)
			}
		})
	}
	// On an intact file an unknown id is named.
	_, err = datasets.InspectSelected(ctx, "longmemeval", "longmemeval/testdata/longmemeval_oracle.json", datasets.Options{}, datasets.Selection{Episodes: []string{"nope"}})
	loadtest.WantError(t, err, "episodes not in")
}
