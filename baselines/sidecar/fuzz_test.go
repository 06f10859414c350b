package sidecar

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/memory"
)

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// FuzzRecallReply feeds arbitrary reply lines to a recall: arbor never
// panics, and whatever it accepts fits the budget and cites sources as sent.
func FuzzRecallReply(f *testing.F) {
	f.Add(`{"id":1,"ok":true,"items":[{"text":"a b","time":"2023-05-30T10:00:00Z","sources":["x"]}]}`)
	f.Add(`{"id":1,"ok":true,"items":[{"text":"a","channel":"weird"}]}`)
	f.Add(`{"id":1,"ok":true,"items":[{"text":"a","time":"yesterday"}]}`)
	f.Add(`{"id":2,"ok":true}`)
	f.Add(`{"id":1,"ok":false,"error":"boom","usage":{"chat":{"calls":-3}}}`)
	f.Add(`{"id":1,"ok":true,"items":"nope"}`)
	f.Add("not json")
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return // one protocol line
		}
		pr := &proc{spec: &Spec{System: "fuzz"}, cmd: &exec.Cmd{}, stdin: discard{}, lines: make(chan []byte, 1),
			exited: make(chan struct{}), stderr: &tail{max: 64}}
		close(pr.exited)
		pr.lines <- []byte(line)
		close(pr.lines)
		s := &System{pool: &Pool{spec: Spec{System: "fuzz", Timeout: time.Second, TopK: 5}, counter: words{}}, proc: pr}
		b, err := s.Recall(t.Context(), memory.Query{Text: "q", Budget: 3})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz sidecar: ") {
				t.Errorf("error %q does not name the system", err)
			}
			return
		}
		if b.Tokens() > 3 {
			t.Errorf("bundle of %d tokens over the budget of 3", b.Tokens())
		}
		for _, it := range b.Items {
			if it.Tokens != (words{}).Count(it.Text) || it.Text == "" {
				t.Errorf("item %+v miscounted or empty", it)
			}
		}
	})
}
