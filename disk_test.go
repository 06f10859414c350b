package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// smallDisk mounts a tmpfs of size bytes for the test (unmounted at
// cleanup); it skips the test, saying why, where mounting is not permitted
// (not root, or no CAP_SYS_ADMIN in the sandbox).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestFullDisk runs an eval on a results disk that fills up mid-run: arbor
// stops with one line naming the file and the cause, every sample written
// before is intact, and the same command on a disk with room resumes and
// finishes the run as an uninterrupted one would.
func TestFullDisk(t *testing.T) {
	full := smallDisk(t, "200k")
	args := func(results string) []string {
		return []string{"eval", "branchmemeval", "--limit", "8", "--systems", "bm25,full,recent", "--results", results, "--no-progress"}
	}
	p := start(t, args(full)...)
	if err := p.Wait(); err == nil {
		t.Fatal("the run fit on a 200 KiB disk; the test needs it to fill up")
	}
	var errLines []string
	for _, l := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		if strings.HasPrefix(l, "arbor:") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) != 1 || !strings.Contains(errLines[0], "no space left on device") || !strings.Contains(errLines[0], ".jsonl") {
		t.Fatalf("want one error line naming the log being written and the full disk, got:\n%s", p.stderr.String())
	}
	dir := runDir(t, full, "eval-branchmemeval-*")
	written := lines(filepath.Join(dir, "samples.jsonl"))
	if written == 0 {
		t.Fatal("nothing was written before the disk filled up")
	}
	// Move the run to a disk with room (as a user would) and resume it.
	roomy := t.TempDir()
	if out, err := exec.Command("cp", "-a", dir, roomy).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	re := start(t, args(roomy)...)
	if err := re.Wait(); err != nil {
		t.Fatalf("resume on a disk with room failed: %v\n%s", err, re.stderr.String())
	}
	resumed := runDir(t, roomy, "eval-branchmemeval-*")
	got := keys(t, resumed)
	ref := t.TempDir()
	arbor(t, args(ref)...)
	sameRun(t, resumed, runDir(t, ref, "eval-branchmemeval-*"))
	if len(got) <= written {
		t.Errorf("resume added nothing: %d samples, %d before", len(got), written)
	}
}

// TestReadOnlyDisk: a command that must write to a read-only results disk
// fails with one line naming the cause, leaving the finished run there as
// it was.
func TestReadOnlyDisk(t *testing.T) {
	disk := smallDisk(t, "4m")
	eval := func(limit string) []string {
		return []string{"eval", "branchmemeval", "--limit", limit, "--systems", "bm25", "--results", disk, "--no-progress"}
	}
	arbor(t, eval("1")...)
	dir := runDir(t, disk, "eval-branchmemeval-*")
	before, _ := os.ReadFile(filepath.Join(dir, "samples.jsonl"))
	if out, err := exec.Command("mount", "-o", "remount,ro", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	p := start(t, eval("2")...)
	if err := p.Wait(); err == nil {
		t.Fatal("an eval that must write to a read-only disk succeeded")
	}
	if msg := p.stderr.String(); !strings.Contains(msg, "read-only file system") {
		t.Errorf("the error does not say the disk is read-only:\n%s", msg)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "samples.jsonl"))
	if string(after) != string(before) {
		t.Error("the finished run's samples changed")
	}
}
