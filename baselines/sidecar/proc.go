package sidecar

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm"
)

// maxLine bounds one protocol line: a recall of 50 units at the 2× prefilter
// of the 32K budget is about 250 KB of JSON; 64 MB leaves room for any
// library's verbose evidence without letting a runaway sidecar exhaust memory.
const maxLine = 64 << 20

// proc is one running sidecar process. Calls are sequential: the process
// serves one episode at a time (Pool hands it out exclusively).
type proc struct {
	spec   *Spec
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout lines; closed at EOF
	exited chan struct{}
	stderr *tail
	seq    int64
	hello  HelloReply
	broken error // set once the process cannot be trusted; every later call returns it
	// modelErrors counts the failed model calls the sidecar reported, over
	// the process's life.
	modelErrors int
}

// start launches the sidecar and performs the handshake.
func start(ctx context.Context, spec *Spec, hello Hello) (*proc, error) {
	if len(spec.Command) == 0 {
		return nil, spec.fail("has no command (bridges.%s.command)", spec.System)
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	// The pipes are closed this long after the process exits even when a
	// grandchild still holds them, so Wait never blocks the run.
	cmd.WaitDelay = time.Second
	p := &proc{spec: spec, cmd: cmd, lines: make(chan []byte, 1), exited: make(chan struct{}), stderr: &tail{max: 8 << 10}}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, spec.fail("stdin: %v", err)
	}
	// An os.Pipe of our own rather than StdoutPipe: Wait closes StdoutPipe's
	// reader when the process exits, which could drop the last lines a
	// failing sidecar wrote; this one is read to its end.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, spec.fail("stdout: %v", err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		out.Close()
		w.Close()
		return nil, spec.fail("cannot start %q: %v", strings.Join(spec.Command, " "), err)
	}
	w.Close() // the child holds its own copy
	p.stdin = in
	go p.read(out)
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	var rep HelloReply
	if err := p.call(ctx, "hello", hello, &rep, spec.StartTimeout); err != nil {
		p.kill()
		return nil, err
	}
	if rep.Protocol != Version {
		p.kill()
		return nil, spec.fail("speaks protocol version %d, arbor speaks %d: update the sidecar (%s)", rep.Protocol, Version, spec.Install)
	}
	p.hello = rep
	return p, nil
}

func (p *proc) read(out io.ReadCloser) {
	defer out.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		p.lines <- bytes.Clone(line)
	}
	// A line over maxLine ends the reading: the next call sees the output
	// closed and the process is replaced.
	close(p.lines)
}

// envelope is the part of every reply arbor reads before the op's own fields.
type envelope struct {
	ID    int64                `json:"id"`
	OK    bool                 `json:"ok"`
	Error string               `json:"error"`
	Usage map[string]WireUsage `json:"usage"`
}

// call sends one request and decodes the reply's fields into out. Any
// failure that leaves the process in an unknown state (exit, timeout,
// unreadable reply, cancelled context) kills it and marks it broken; an
// error the sidecar reports itself ({"ok": false}) does not.
func (p *proc) call(ctx context.Context, op string, req any, out any, timeout time.Duration) error {
	if p.broken != nil {
		return p.broken
	}
	p.seq++
	line, err := encodeRequest(p.seq, op, req)
	if err != nil {
		return p.spec.fail("%s: encode request: %v", op, err)
	}
	if _, err := p.stdin.Write(line); err != nil {
		return p.breakWith(p.exitError(op))
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case raw, ok := <-p.lines:
		if !ok {
			return p.breakWith(p.exitError(op))
		}
		var env envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			return p.breakWith(p.spec.fail("wrote garbage in reply to %s (%s); %s", op, clip(string(raw), 120), p.spec.hint()))
		}
		if env.ID != p.seq {
			return p.breakWith(p.spec.fail("answered request %d while arbor waited for %d (%s); %s", env.ID, p.seq, op, p.spec.hint()))
		}
		account(ctx, env.Usage)
		for _, u := range env.Usage {
			p.modelErrors += max(u.Errors, 0)
		}
		if !env.OK {
			if env.Error == "" {
				env.Error = "no error message"
			}
			return p.spec.fail("%s: %s", op, env.Error)
		}
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				return p.breakWith(p.spec.fail("reply to %s does not match the protocol: %v; %s", op, err, p.spec.hint()))
			}
		}
		return nil
	case <-timer:
		return p.breakWith(p.spec.fail("did not answer %s within %s (hung; killed, a fresh process serves the next episode); %s", op, timeout, p.spec.hint()))
	case <-ctx.Done():
		return p.breakWith(fmt.Errorf("%s sidecar: %s: %w", p.spec.System, op, ctx.Err()))
	}
}

// exitError describes a process that stopped answering: its exit status and
// the last line it wrote to stderr.
func (p *proc) exitError(op string) error {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
	status := "closed its output"
	if st := p.cmd.ProcessState; st != nil {
		status = "exited (" + st.String() + ")"
	}
	last := p.stderr.lastLine()
	if strings.Contains(strings.ToLower(last), "install") {
		// The sidecar said itself what is missing and how to install it.
		return p.spec.fail("%s during %s: %s", status, op, last)
	}
	if last != "" {
		last = ": " + last
	}
	return p.spec.fail("%s during %s%s; %s", status, op, last, p.spec.hint())
}

func (p *proc) breakWith(err error) error {
	p.broken = err
	p.kill()
	return err
}

// kill stops the process; safe to call more than once.
func (p *proc) kill() {
	if p.broken == nil {
		p.broken = p.spec.fail("was stopped")
	}
	p.stdin.Close()
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	// Drain so the reader goroutine can finish.
	go func() {
		for range p.lines {
		}
	}()
}

// close asks the process to exit (closing stdin is the protocol's
// shutdown) and kills it if it does not within a second.
func (p *proc) close() {
	if p.broken != nil {
		return
	}
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(time.Second):
	}
	p.kill()
}

func encodeRequest(id int64, op string, req any) ([]byte, error) {
	fields := map[string]any{}
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, err
		}
	}
	fields["id"], fields["op"] = id, op
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// account adds the sidecar's own model calls to the context's usage, under
// the role whose endpoint they went to ("chat", "embed"), so that they reach
// the cost table beside arbor's own calls.
func account(ctx context.Context, u map[string]WireUsage) {
	usage := llm.UsageFrom(ctx)
	for role, w := range u {
		usage.Add(role, llm.RoleUsage{Count: max(w.Calls, 0), Errors: max(w.Errors, 0), PromptTokens: max(w.PromptTokens, 0), CompletionTokens: max(w.CompletionTokens, 0)})
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return clip(l, 300)
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var errClosed = errors.New("the memory instance was closed")
