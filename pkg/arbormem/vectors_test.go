package arbormem

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

// TestVectorSettings checks the vector_storage and vector_search keys:
// bad values are refused with the key named; every storage and search
// works on dense vectors (wordEmbedder, as a model's) and survives a
// save and load with the same bundles and the same files saved again (a
// quantised row read back is stored as its own codes, not re-quantised;
// on the model path, float32 records are unit rows, not kept as given,
// and are read back as such). The three binary cases commit far fewer
// rows than the index's approximate-search floor (index.approxMin, 1,024),
// so their searches score every row exactly and never reach the binary
// stage: they check the settings are wired and persist, and binary recall
// is index.TestBinaryRecall's to check.
func TestVectorSettings(t *testing.T) {
	for _, tc := range []struct {
		storage, search string
		rerank          int
		err             string
		model           bool
	}{
		{"int4", "exact", 10, "", false},
		{"int8", "binary", 10, "", false},
		{"int4", "binary", 1, "", false},
		{"float32", "binary", 10, "", false},
		{"float32", "exact", 10, "", true},
		{"int8", "exact", 10, "", true},
		{"int2", "exact", 10, "vector_storage", false},
		{"int8", "hnsw", 10, "vector_search", false},
		{"int8", "binary", 0, "vector_rerank", false},
	} {
		name := tc.storage + "/" + tc.search
		if tc.model {
			name += "/model"
		}
		mk := func() (*System, error) {
			return newSystemErr(func(c *config.ArborMem, d *Deps) {
				c.VectorStorage, c.VectorSearch, c.VectorRerank = tc.storage, tc.search, tc.rerank
				d.Embed = wordEmbedder{dim: 1024, words: &sync.Map{}}
				if tc.model {
					d.Extractor = modelLike{}
				}
			})
		}
		a, err := mk()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s rerank %d: error %v, want one naming %s", name, tc.rerank, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ctx := context.Background()
		mustCommit(t, a, memorytest.Conversation()...)
		dir := filepath.Join(t.TempDir(), "snap")
		if err := a.Save(ctx, dir); err != nil {
			t.Fatal(err)
		}
		b, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Load(ctx, dir); err != nil {
			t.Fatal(err)
		}
		for _, q := range persistQueries {
			qq := memory.Query{ID: "q", Text: q, Budget: 30968}
			ba, bb := mustRecall(t, a, qq), mustRecall(t, b, qq)
			if len(ba.Items) == 0 {
				t.Errorf("%s: %q: empty bundle", name, q)
			}
			if !reflect.DeepEqual(ba.Items, bb.Items) {
				t.Errorf("%s: %q: bundles differ after save/load", name, q)
			}
		}
		dir2 := filepath.Join(t.TempDir(), "snap2")
		if err := b.Save(ctx, dir2); err != nil {
			t.Fatal(err)
		}
		// A file that could not be read would read as nil on both sides,
		// and bytes.Equal(nil, nil) would pass: the errors are checked.
		x, err := os.ReadFile(filepath.Join(dir, snapshotVectors))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(dir2, snapshotVectors))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s: vectors differ after a load/save round trip", name)
		}
	}
}

// newSystemErr is newTestSystem returning New's error.
func newSystemErr(mut ...func(*config.ArborMem, *Deps)) (*System, error) {
	cfg := config.DefaultArborMem()
	d := testDeps()
	d.Routing = RoutingPaper
	for _, m := range mut {
		m(&cfg, &d)
	}
	return New(cfg, d)
}
