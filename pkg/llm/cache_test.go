package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/staletemp"
)

// countingChat answers "reply N" and counts calls.
type countingChat struct{ calls atomic.Int64 }

func (c *countingChat) Chat(_ context.Context, req ChatRequest) (ChatResponse, error) {
	n := c.calls.Add(1)
	return ChatResponse{Content: fmt.Sprintf("reply %d", n), PromptTokens: 5, CompletionTokens: 2}, nil
}

func openCache(t testing.TB) *Cache {
	c, err := OpenCache(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Flush) // before TempDir's removal (cleanups run last first)
	return c
}

func TestCacheChat(t *testing.T) {
	cache := openCache(t)
	inner := &countingChat{}
	c := CacheChat(inner, cache, "chat", "m1")
	ctx := context.Background()
	msgs := []Message{{Role: "user", Content: "hello"}}
	first, _ := c.Chat(ctx, ChatRequest{Messages: msgs, Purpose: "answer"})
	again, _ := c.Chat(ctx, ChatRequest{Messages: msgs, Purpose: "judge"}) // purpose is not part of the key
	if inner.calls.Load() != 1 || !again.Cached || first.Cached || again.Content != first.Content || again.PromptTokens != 5 {
		t.Fatalf("calls %d, first %+v, again %+v", inner.calls.Load(), first, again)
	}
	steps := []struct {
		name  string
		c     Client
		req   ChatRequest
		calls int64
	}{
		{"sampled replies bypass the cache", c, ChatRequest{Messages: msgs, Temperature: 0.7}, 2},
		{"and again", c, ChatRequest{Messages: msgs, Temperature: 0.7}, 3},
		{"unless forced", c, ChatRequest{Messages: msgs, Temperature: 0.7, ForceCache: true}, 4},
		{"forced, second time", c, ChatRequest{Messages: msgs, Temperature: 0.7, ForceCache: true}, 4},
		{"another sampling parameter", c, ChatRequest{Messages: msgs, MaxTokens: 10}, 5},
		{"another response format", c, ChatRequest{Messages: msgs, ResponseFormat: "json_object"}, 6},
		{"another model", CacheChat(inner, cache, "chat", "m2"), ChatRequest{Messages: msgs}, 7},
		{"another role", CacheChat(inner, cache, "judge", "m1"), ChatRequest{Messages: msgs}, 8},
		{"the first again", c, ChatRequest{Messages: msgs}, 8},
	}
	for _, s := range steps {
		s.c.Chat(ctx, s.req)
		if inner.calls.Load() != s.calls {
			t.Fatalf("%s: %d calls, want %d", s.name, inner.calls.Load(), s.calls)
		}
	}
}

func TestCacheCorruptEntryIsAMiss(t *testing.T) {
	cache := openCache(t)
	inner := &countingChat{}
	c := CacheChat(inner, cache, "chat", "m")
	req := ChatRequest{Messages: []Message{{Role: "user", Content: "x"}}}
	c.Chat(context.Background(), req)
	cache.Flush()
	files, _ := filepath.Glob(filepath.Join(cache.Dir(), "chat", "*", "*"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	os.WriteFile(files[0], []byte(`{"content": "tru`), 0o644)
	r, err := c.Chat(context.Background(), req)
	if err != nil || r.Cached || inner.calls.Load() != 2 {
		t.Fatalf("corrupt entry: %+v %v calls %d", r, err, inner.calls.Load())
	}
	if r, _ := c.Chat(context.Background(), req); !r.Cached || inner.calls.Load() != 2 {
		t.Fatal("entry was not rewritten")
	}
}

// countingEmbedder returns [len(text)] and records what it was asked.
type countingEmbedder struct {
	mu    sync.Mutex
	asked [][]string
}

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.asked = append(e.asked, texts)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}
func (e *countingEmbedder) Dim() int { return 2 }

func TestCacheEmbedPerTextAndBatches(t *testing.T) {
	inner := &countingEmbedder{}
	e := CacheEmbed(BatchEmbed(inner, 2, 2), openCache(t), "embed", "m")
	ctx := context.Background()
	if _, err := e.Embed(ctx, []string{"a", "bb", "ccc"}); err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(ctx, []string{"bb", "dddd", "a"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float32{2, 4, 1} {
		if vs[i][0] != want {
			t.Errorf("vector %d = %v, want [%v 1]", i, vs[i], want)
		}
	}
	if len(inner.asked) != 3 || strings.Join(inner.asked[2], ",") != "dddd" {
		t.Fatalf("inner was asked %v; want two batches of the first call, then only the new text", inner.asked)
	}
	if e.Dim() != 2 {
		t.Errorf("dim %d", e.Dim())
	}
}

func TestVectorEncoding(t *testing.T) {
	v := []float32{0.5, -1.25, 3}
	got, ok := decodeVector(encodeVector(v), 3)
	if !ok || fmt.Sprint(got) != fmt.Sprint(v) {
		t.Fatalf("round trip %v %v", got, ok)
	}
	for _, b := range [][]byte{nil, []byte("arbv"), encodeVector(v)[:10], []byte("xxxx\x01\x00\x00\x00abcd")} {
		if _, ok := decodeVector(b, 0); ok {
			t.Errorf("%q decoded", b)
		}
	}
	if _, ok := decodeVector(encodeVector(v), 4); ok {
		t.Error("wrong dimension decoded")
	}
}

// FuzzDecodeVector: DecodeVector never panics, and what it accepts is
// exactly an entry encodeVector writes (re-encoding gives the same bytes),
// so a tool reading a cache counts every other file as undecodable.
func FuzzDecodeVector(f *testing.F) {
	f.Add(encodeVector([]float32{0.5, -1.25, 3}))
	f.Add(encodeVector([]float32{float32(math.NaN()), float32(math.Inf(1))}))
	f.Add([]byte("arbv\x00\x00\x00\x00"))
	f.Add([]byte("arbv\xff\xff\xff\xff"))
	f.Add([]byte("{\"content\":\"not a vector\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := DecodeVector(b)
		if !ok {
			if v != nil {
				t.Fatalf("rejected %q but returned %v", b, v)
			}
			return
		}
		if len(v) == 0 || !bytes.Equal(encodeVector(v), b) {
			t.Fatalf("accepted %q as %v, which encodes otherwise", b, v)
		}
	})
}

// payload is a cache value whose integrity can be checked: Pad must be
// N copies of Tag.
type payload struct {
	Tag string `json:"tag"`
	N   int    `json:"n"`
	Pad string `json:"pad"`
}

func newPayload(tag string, n int) payload { return payload{tag, n, strings.Repeat(tag, n)} }

func checkEntries(t testing.TB, c *Cache, keys int) {
	t.Helper()
	for k := range keys {
		var p payload
		b, ok := c.get("test", cacheKey(k))
		if !ok {
			continue
		}
		if err := json.Unmarshal(b, &p); err != nil || p.Pad != strings.Repeat(p.Tag, p.N) {
			t.Fatalf("key %d: torn entry (%d bytes): %v", k, len(b), err)
		}
	}
}

func TestCacheConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	writers := make([]*Cache, 4) // as if four processes shared the directory
	for i := range writers {
		writers[i], _ = OpenCache(dir, nil)
	}
	reader, _ := OpenCache(dir, nil) // never puts: every read is from disk
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100 {
				writers[w%4].putJSON("test", cacheKey(i%10), newPayload(fmt.Sprintf("w%d", w), 500+i))
			}
		})
		wg.Go(func() {
			for range 100 {
				checkEntries(t, reader, 10)
			}
		})
	}
	wg.Wait()
	for _, c := range writers {
		c.Flush()
		if c.WriteErrors() != 0 {
			t.Fatalf("write errors %d", c.WriteErrors())
		}
	}
	checkEntries(t, reader, 10)
	left, _ := filepath.Glob(filepath.Join(dir, tmpDir, "*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestCacheLastPutWins(t *testing.T) {
	c := openCache(t)
	for i := range 300 {
		c.putJSON("test", cacheKey("k"), newPayload("x", i))
	}
	c.Flush()
	fresh, _ := OpenCache(c.Dir(), nil)
	var p payload
	if !fresh.getJSON("test", cacheKey("k"), &p) || p.N != 299 {
		t.Fatalf("on disk: %+v", p)
	}
	if len(c.pending) != 0 || c.writing {
		t.Fatalf("%d entries still pending", len(c.pending))
	}
}

// TestCacheAcrossProcesses runs writers in child processes (this test
// binary, re-entered through TestCacheWriterProcess) against one directory
// while this process reads.
func TestCacheAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for w := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ARBOR_CACHE_WRITER_DIR="+dir, fmt.Sprintf("ARBOR_CACHE_WRITER_TAG=p%d", w))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	c, _ := OpenCache(dir, nil)
	exited := make(chan struct{})
	go func() {
		for _, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Error(err)
			}
		}
		close(exited)
	}()
	reads := 0
	for done := false; !done; reads++ {
		select {
		case <-exited:
			done = true
		default:
		}
		checkEntries(t, c, 10)
	}
	checkEntries(t, c, 10)
	var p payload
	if !c.getJSON("test", cacheKey(3), &p) || !strings.HasPrefix(p.Tag, "p") {
		t.Fatalf("no entry from the writer processes (%d read rounds)", reads)
	}
}

func TestCacheWriterProcess(t *testing.T) {
	dir := os.Getenv("ARBOR_CACHE_WRITER_DIR")
	if dir == "" {
		return // only meaningful as TestCacheAcrossProcesses' child
	}
	c, err := OpenCache(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tag := os.Getenv("ARBOR_CACHE_WRITER_TAG")
	for i := range 300 {
		c.putJSON("test", cacheKey(i%10), newPayload(tag, 3000+i))
	}
	c.Flush()
	if c.WriteErrors() != 0 {
		t.Fatalf("%d write errors", c.WriteErrors())
	}
}

// TestCacheSync: once Sync returns, every entry put before it is readable
// from disk by another process's cache (one that holds nothing pending), so
// a run killed right after recording a sample has that sample's replies.
func TestCacheSync(t *testing.T) {
	c := openCache(t)
	other, _ := OpenCache(c.Dir(), nil)
	for round := range 3 {
		for i := range 100 {
			c.putJSON("test", cacheKey(round, i), newPayload("s", i))
		}
		c.Sync()
		for i := range 100 {
			var p payload
			if !other.getJSON("test", cacheKey(round, i), &p) || p.N != i {
				t.Fatalf("round %d: entry %d not on disk after Sync", round, i)
			}
		}
	}
	var nilCache *Cache
	nilCache.Sync() // a disabled cache: nothing to wait for
}

// TestCacheStaleTempRemoved: temporary files a killed writer left behind are
// removed on the next open; a recent one (a live writer's, perhaps another
// run's sharing the cache) is left alone.
func TestCacheStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, tmpDir)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(tmp, "put-old"), filepath.Join(tmp, "put-fresh")
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, []byte("half an entr"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staletemp.Age)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCache(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("recent temporary file removed: %v", err)
	}
}
