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
	"github.com/arbor-eval/arbor/pkg/index"
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
		facts           string // fact_vector_storage; "" is auto
	}{
		{"int4", "exact", 10, "", false, ""},
		{"int8", "binary", 10, "", false, ""},
		{"int4", "binary", 1, "", false, ""},
		{"float32", "binary", 10, "", false, ""},
		{"float32", "exact", 10, "", true, ""},
		{"int8", "exact", 10, "", true, ""},
		{"auto", "exact", 10, "", true, ""}, // int8 nodes and records, int4 facts
		{"int8", "exact", 10, "", true, "float32"},
		{"int2", "exact", 10, "vector_storage", false, ""},
		{"int8", "exact", 10, "fact_vector_storage", false, "int16"},
		{"int8", "hnsw", 10, "vector_search", false, ""},
		{"int8", "binary", 0, "vector_rerank", false, ""},
	} {
		name := tc.storage + "/" + tc.search
		if tc.model {
			name += "/model"
		}
		if tc.facts != "" {
			name += "/facts-" + tc.facts
		}
		mk := func() (*System, error) {
			return newSystemErr(func(c *config.ArborMem, d *Deps) {
				c.VectorStorage, c.VectorSearch, c.VectorRerank = tc.storage, tc.search, tc.rerank
				c.FactVectorStorage = tc.facts
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

// TestFactStorage checks how fact_vector_storage resolves (VectorStorages): "auto" follows
// vector_storage when that is named, and gives int4 where vector_storage
// is itself "auto" on the model path (int8 there for nodes and records),
// float32 with rule-based memory operations; a named fact storage wins.
func TestFactStorage(t *testing.T) {
	for _, tc := range []struct {
		storage, facts string
		model          bool
		nodes, want    index.Storage
	}{
		{"auto", "auto", true, index.Int8, index.Int4},
		{"", "", true, index.Int8, index.Int4},
		{"auto", "auto", false, index.Float32, index.Float32},
		{"int8", "auto", true, index.Int8, index.Int8},
		{"int8", "auto", false, index.Int8, index.Int8},
		{"float32", "auto", true, index.Float32, index.Float32},
		{"int4", "", true, index.Int4, index.Int4},
		{"auto", "int8", true, index.Int8, index.Int8},
		{"auto", "int4", false, index.Float32, index.Int4},
		{"int8", "float32", true, index.Int8, index.Float32},
	} {
		a, err := newSystemErr(func(c *config.ArborMem, d *Deps) {
			c.VectorStorage, c.FactVectorStorage = tc.storage, tc.facts
			if tc.model {
				d.Extractor = modelLike{}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		// The system's own resolution, and VectorStorages as arbor perf
		// recall calls it (heuristic told rather than asked).
		nodes := a.vectorOptions().Storage
		ch, got := VectorStorages(a.cfg, !tc.model)
		if ch != nodes || nodes != tc.nodes || got != tc.want {
			t.Errorf("vector_storage %q, fact_vector_storage %q, model %v: nodes %d facts %d, want %d and %d",
				tc.storage, tc.facts, tc.model, nodes, got, tc.nodes, tc.want)
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
