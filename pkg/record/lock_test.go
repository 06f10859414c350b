//go:build unix

package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLockHelperProcess is not a test: TestLockDirRefusesSecondProcess runs
// the test binary as a second process that holds the lock until its stdin
// closes.
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv("ARBOR_TEST_LOCK_DIR")
	if dir == "" {
		t.Skip("helper process")
	}
	l, err := LockDir(dir, []string{"arbor", "eval", "helper"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = l.Unlock()
	os.Exit(0)
}

// TestLockDirRefusesSecondProcess holds a run folder in another process:
// this one is refused at once with the holder's pid and command, and takes
// the folder once the holder exits.
func TestLockDirRefusesSecondProcess(t *testing.T) {
	dir := t.TempDir()
	cmd, stdin := startLockHolder(t, dir)
	_, err := LockDir(dir, []string{"arbor", "eval", "second"})
	want := fmt.Sprintf("pid %d (arbor eval helper)", cmd.Process.Pid)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second writer: %v; want one line with ErrLocked naming %q", err, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	l, err := LockDir(dir, nil)
	if err != nil {
		t.Fatalf("lock after the holder exited: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// startLockHolder starts TestLockHelperProcess holding dir's lock and
// waits until it says so; closing stdin lets it unlock and exit.
func startLockHolder(t *testing.T, dir string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "ARBOR_TEST_LOCK_DIR="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); strings.TrimSpace(line) != "locked" {
		t.Fatalf("helper: %q", line)
	}
	return cmd, stdin
}

// TestLockDirKilledHolder: a holder killed without unlocking leaves its
// lock file behind with its pid; the kernel has released the lock, so the
// next writer takes the folder.
func TestLockDirKilledHolder(t *testing.T) {
	dir := t.TempDir()
	cmd, _ := startLockHolder(t, dir)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	l, err := LockDir(dir, nil)
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	_ = l.Unlock()
}

// TestHolder: a folder held by a live writer names it; one whose writer
// finished, one whose writer was killed (its name left in the lock file)
// and one never locked do not; and probing does not disturb the writer.
func TestHolder(t *testing.T) {
	if _, held := Holder(t.TempDir()); held {
		t.Error("a folder never locked is held")
	}
	dir := t.TempDir()
	cmd, stdin := startLockHolder(t, dir)
	who, held := Holder(dir)
	if want := fmt.Sprintf("pid %d (arbor eval helper)", cmd.Process.Pid); !held || who != want {
		t.Errorf("live writer: Holder = %q, %v; want %q", who, held, want)
	}
	if _, err := LockDir(dir, nil); !errors.Is(err, ErrLocked) {
		t.Errorf("after the probe, a second writer: %v; want ErrLocked", err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, held := Holder(dir); held {
		t.Error("a finished writer still holds the folder")
	}
	killed := t.TempDir()
	cmd, _ = startLockHolder(t, killed)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, held := Holder(killed); held {
		t.Error("a killed writer still holds the folder")
	}
	l, err := LockDir(killed, nil)
	if err != nil {
		t.Fatalf("lock after probing a killed writer's folder: %v", err)
	}
	_ = l.Unlock()
}
