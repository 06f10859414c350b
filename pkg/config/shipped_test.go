package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestShippedMatchConfigsDir: the embedded copies are the repository's
// configs (run `go generate ./pkg/config` after editing one), and each
// loads from a directory that has no configs/ folder.
func TestShippedMatchConfigsDir(t *testing.T) {
	names := Shipped()
	if len(names) < 4 {
		t.Fatalf("shipped configs: %v", names)
	}
	t.Chdir(t.TempDir())
	for _, name := range names {
		if _, err := os.Stat(name); err == nil {
			t.Fatalf("%s: the temporary folder unexpectedly has it", name)
		}
		if _, err := Load(name, nil, nil); err != nil {
			t.Errorf("%s from another folder: %v", name, err)
		}
	}
	if _, err := Load("configs/nosuch.yaml", nil, nil); err == nil {
		t.Error("an unknown configs/ file loaded")
	}
}

func TestShippedEqualRepository(t *testing.T) {
	for _, name := range Shipped() {
		disk, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		emb, _ := ShippedYAML(name)
		if !bytes.Equal(disk, emb) {
			t.Errorf("pkg/config/shipped differs from %s: run `go generate ./pkg/config`", name)
		}
	}
}
