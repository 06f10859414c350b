package cmd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPerfRecallFlags: `arbor perf recall --cache DIR` reads a cache's
// embeddings and measures the dense channels' k under the config (20, 40
// and 60 by default) without further flags, binary and IVF over each
// channel's own rows (facts int4, nodes and records int8 under auto).
func TestPerfRecallFlags(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		b := append([]byte("arbv"), binary.LittleEndian.AppendUint32(nil, 8)...)
		for j := range 8 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(math.Sin(float64(i*8+j)))))
		}
		p := filepath.Join(dir, "embed", fmt.Sprintf("%02x", i), fmt.Sprintf("%064x", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	rootCmd.SetArgs([]string{"perf", "recall", "--cache", dir})
	err := rootCmd.Execute()
	rootCmd.SetArgs(nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"Read 40 entries", "8 held out as queries, 32 rows searched", "recall@20", "recall@40", "recall@60", "binary, vector_rerank 10, int8", "binary, vector_rerank 10, int4",
		"int8 rows at k 20, 60; int4 rows at k 40", "too small to decide"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
