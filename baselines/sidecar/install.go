package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Mem0NodeMissing says what is missing for the Node Mem0 sidecar under
// bridgesDir (scripts/bridges) to run, as one line with the install step,
// or "" when node is on PATH and node_modules holds mem0ai with
// better-sqlite3's native binding built (an interrupted `npm ci` leaves the
// package without it, and Mem0 then fails at its first search).
func Mem0NodeMissing(bridgesDir string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node not found: install node >= 20, then run `npm ci` in scripts/bridges/mem0"
	}
	mods := filepath.Join(bridgesDir, "mem0", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "mem0ai", "package.json")); err != nil {
		return "the Mem0 sidecar is not installed: run `npm ci` in scripts/bridges/mem0"
	}
	if _, err := os.Stat(filepath.Join(mods, "better-sqlite3", "build", "Release", "better_sqlite3.node")); err != nil {
		return "the Mem0 sidecar's native SQLite binding is not built (an interrupted install?): run `npm ci` in scripts/bridges/mem0 again"
	}
	return ""
}
