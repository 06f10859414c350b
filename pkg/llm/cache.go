package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/arbor-eval/arbor/pkg/staletemp"
)

// Cache stores model replies on disk, one file per reply, named by the
// sha256 of what determines the reply: role, model, messages, sampling
// parameters and response format (never the endpoint URL, so a re-run on
// other servers of the same model still hits). Files are written to a
// temporary name and renamed into place, which is atomic on POSIX file
// systems, so concurrent writers, in this process or others, never leave a
// torn entry: a reader sees the old file, the new one, or none. An entry
// that does not decode (a crash mid-write on a file system without ordered
// renames) is a miss and is overwritten.
//
// Writes happen behind the caller: creating a file costs 0.1–1.5 ms on this
// machine's disks, more than everything else a cached call does, so a put
// is kept in memory (and served from there) until a background goroutine
// has written it. Sync waits for the writes queued before it: the runner
// calls it before recording a sample, so that a recorded sample's replies
// are on disk and a SIGKILL cannot leave a sample whose replies a re-run
// would have to ask for again. Flush waits for every pending write; call it
// before exiting.
//
// Temporary files are made in one folder, dir/.tmp, and renamed into place;
// OpenCache removes the ones a killed writer left there.
type Cache struct {
	dir       string
	made      sync.Map // directories already created
	logger    *slog.Logger
	writeErrs atomic.Int64

	mu      sync.Mutex
	pending map[string]*pendingEntry // path → entry not yet renamed into place
	queue   []string                 // paths to write, oldest first
	writing bool                     // a writer goroutine is running
	idle    *sync.Cond               // signalled after each write and when the queue drains
	// queued and written count the paths ever appended to queue and ever
	// taken off it and written (or failed): Sync waits for written to reach
	// queued as it was on entry.
	queued, written int64
}

type pendingEntry struct {
	b      []byte
	queued bool // in queue; false while (or after) being written
}

// OpenCache creates dir if needed. logger (may be nil) hears about the
// first failed write; a failed write never fails the call that made it.
// Temporary files of a killed writer left in dir/.tmp are removed, once
// old enough that no live writer (another run sharing the cache) can still
// be about to rename them.
func OpenCache(dir string, logger *slog.Logger) (*Cache, error) {
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o755); err != nil {
		return nil, fmt.Errorf("response cache: %w", err)
	}
	c := &Cache{dir: dir, logger: logger, pending: map[string]*pendingEntry{}}
	c.idle = sync.NewCond(&c.mu)
	staletemp.Remove(filepath.Join(c.dir, tmpDir), nil)
	return c, nil
}

// tmpDir holds the cache's temporary files, in one place so that cleaning
// up after a killed writer reads one folder, not every entry's.
const tmpDir = ".tmp"

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// WriteErrors counts failed writes.
func (c *Cache) WriteErrors() int64 { return c.writeErrs.Load() }

// Flush returns once every entry put so far is on disk (or has failed).
func (c *Cache) Flush() {
	c.mu.Lock()
	for c.writing {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

// Sync returns once every entry put before the call is on disk (or has
// failed); entries put meanwhile by other goroutines are not waited for.
func (c *Cache) Sync() {
	if c == nil {
		return
	}
	c.mu.Lock()
	target := c.queued
	for c.written < target {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

// cacheKey hashes the JSON encoding of parts (maps encode with sorted keys,
// so equal values give equal keys).
func cacheKey(parts ...any) string {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(parts); err != nil {
		// Only unencodable values (NaN, channels) get here; such a request
		// is never served from the cache.
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(kind, key string) string {
	return filepath.Join(c.dir, kind, key[:2], key)
}

func (c *Cache) get(kind, key string) ([]byte, bool) {
	if key == "" {
		return nil, false
	}
	p := c.path(kind, key)
	c.mu.Lock()
	e := c.pending[p]
	c.mu.Unlock()
	if e != nil {
		return e.b, true
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// put queues b for writing under kind/key.
func (c *Cache) put(kind, key string, b []byte) {
	if key == "" {
		return
	}
	p := c.path(kind, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.pending[p]
	if e == nil {
		e = &pendingEntry{}
		c.pending[p] = e
	}
	e.b = b
	if !e.queued {
		e.queued = true
		c.queue = append(c.queue, p)
		c.queued++
	}
	if !c.writing {
		c.writing = true
		go c.drain()
	}
}

// drain writes queued entries until none are left, then exits, so an idle
// cache holds no goroutine.
func (c *Cache) drain() {
	c.mu.Lock()
	for len(c.queue) > 0 {
		p := c.queue[0]
		c.queue = c.queue[1:]
		e := c.pending[p]
		e.queued = false
		b := e.b
		c.mu.Unlock()
		err := c.write(p, b)
		c.mu.Lock()
		if !e.queued { // not put again meanwhile
			delete(c.pending, p)
		}
		c.written++
		c.idle.Broadcast()
		if err != nil && c.writeErrs.Add(1) == 1 && c.logger != nil {
			c.logger.Warn("response cache write failed (further failures are counted, not logged)", "error", err)
		}
	}
	c.queue = nil
	c.writing = false
	c.idle.Broadcast()
	c.mu.Unlock()
}

func (c *Cache) write(path string, b []byte) error {
	dir := filepath.Dir(path)
	if _, ok := c.made.Load(dir); !ok {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		c.made.Store(dir, true)
	}
	f, err := os.CreateTemp(filepath.Join(c.dir, tmpDir), "put-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (c *Cache) getJSON(kind, key string, v any) bool {
	b, ok := c.get(kind, key)
	return ok && json.Unmarshal(b, v) == nil
}

func (c *Cache) putJSON(kind, key string, v any) {
	if b, err := json.Marshal(v); err == nil {
		c.put(kind, key, b)
	}
}

// CacheChat serves repeated requests from c. Requests with Temperature > 0
// pass through unless ForceCache is set: their replies are samples, not
// answers. Hits come back with Cached set and their original timings.
func CacheChat(next Client, c *Cache, role, model string) Client {
	return chatFunc(func(ctx context.Context, req ChatRequest) (ChatResponse, error) {
		if req.Temperature > 0 && !req.ForceCache {
			return next.Chat(ctx, req)
		}
		// ChatRequest's JSON form leaves out Purpose and ForceCache.
		key := cacheKey("chat/v1", role, model, req)
		return throughCache(ctx, c, "chat", key, func(r *ChatResponse) bool { r.Cached = true; return true },
			func() (ChatResponse, error) { return next.Chat(ctx, req) })
	})
}

// throughCache returns kind/key's entry when it decodes and hit accepts it
// (hit may adjust it), else calls call and stores a successful result.
func throughCache[T any](ctx context.Context, c *Cache, kind, key string, hit func(*T) bool, call func() (T, error)) (T, error) {
	var v T
	if c.getJSON(kind, key, &v) && hit(&v) {
		noteCached(ctx)
		return v, nil
	}
	v, err := call()
	if err == nil {
		c.putJSON(kind, key, v)
	}
	return v, err
}

// CacheEmbed serves each text's vector from c when present and embeds only
// the rest (in one call to next).
func CacheEmbed(next Embedder, c *Cache, role, model string) Embedder {
	return embedFunc{dim: next.Dim, fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		keys := make([]string, len(texts))
		var miss []string
		var missAt []int
		for i, t := range texts {
			keys[i] = cacheKey("embed/v1", role, model, t)
			if b, ok := c.get("embed", keys[i]); ok {
				if v, ok := decodeVector(b, next.Dim()); ok {
					out[i] = v
					continue
				}
			}
			miss = append(miss, t)
			missAt = append(missAt, i)
		}
		// Cost is a property of the work, not of the cache: a cached text
		// still counts the tokens its embedding cost when it was made.
		hitTokens := 0
		for i := range texts {
			if out[i] != nil {
				hitTokens += cachedTokens(c, "embedtok", keys[i])
			}
		}
		if len(miss) == 0 {
			if len(texts) > 0 {
				noteCached(ctx)
			}
			noteTokens(ctx, hitTokens, 0)
			return out, nil
		}
		before := notedPrompt(ctx)
		vs, err := next.Embed(ctx, miss)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(miss) {
			return nil, malformed("embeddings: %d vectors for %d inputs", len(vs), len(miss))
		}
		shares := apportion(notedPrompt(ctx)-before, miss)
		for j, i := range missAt {
			out[i] = vs[j]
			c.put("embed", keys[i], encodeVector(vs[j]))
			c.put("embedtok", keys[i], []byte(strconv.Itoa(shares[j])))
		}
		noteTokens(ctx, hitTokens, 0)
		return out, nil
	}}
}

// cachedTokens is the token count stored beside a cached entry (0 when
// none: entries from before counts were kept).
func cachedTokens(c *Cache, kind, key string) int {
	b, ok := c.get(kind, key)
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(string(b))
	return n
}

// notedPrompt is the prompt tokens noted so far in ctx's call.
func notedPrompt(ctx context.Context) int {
	if n := noteFrom(ctx); n != nil {
		return int(n.prompt.Load())
	}
	return 0
}

// apportion splits a batch's prompt tokens over its texts by length (the
// server reports one total per request), exactly: the shares sum to total.
func apportion(total int, texts []string) []int {
	out := make([]int, len(texts))
	if total <= 0 || len(texts) == 0 {
		return out
	}
	chars := 0
	for _, t := range texts {
		chars += len(t) + 1
	}
	given := 0
	for i, t := range texts {
		out[i] = total * (len(t) + 1) / chars
		given += out[i]
	}
	out[0] += total - given
	return out
}

// Vectors are stored as "arbv" + uint32 dimension + little-endian float32s:
// a quarter of the JSON size, exact, and checkable by length.
func encodeVector(v []float32) []byte {
	b := make([]byte, 8+4*len(v))
	copy(b, "arbv")
	binary.LittleEndian.PutUint32(b[4:], uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[8+4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector decodes a cached embedding (an embed/xx/<sha256> entry of
// the response cache, in encodeVector's form) of any dimension; false for
// bytes that are not one. It lets tools read a run's embeddings back
// (arbor perf recall measures approximate search on them) without
// knowing the model that made them, which the entry does not record.
func DecodeVector(b []byte) ([]float32, bool) { return decodeVector(b, 0) }

func decodeVector(b []byte, dim int) ([]float32, bool) {
	if len(b) < 8 || string(b[:4]) != "arbv" {
		return nil, false
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if len(b) != 8+4*n || n == 0 || (dim > 0 && n != dim) {
		return nil, false
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[8+4*i:]))
	}
	return v, true
}

// CacheRerank serves repeated (query, documents) calls from c.
// Entries keep the prompt tokens the call cost, which a hit counts again.
func CacheRerank(next Reranker, c *Cache, role, model string) Reranker {
	type entry struct {
		Scores       []float64 `json:"scores"`
		PromptTokens int       `json:"prompt_tokens"`
	}
	return rerankFunc(func(ctx context.Context, q string, docs []string) ([]float64, error) {
		e, err := throughCache(ctx, c, "rerank", cacheKey("rerank/v2", role, model, q, docs),
			func(e *entry) bool {
				if len(e.Scores) != len(docs) {
					return false
				}
				noteTokens(ctx, e.PromptTokens, 0)
				return true
			},
			func() (entry, error) {
				before := notedPrompt(ctx)
				s, err := next.Rerank(ctx, q, docs)
				return entry{Scores: s, PromptTokens: notedPrompt(ctx) - before}, err
			})
		return e.Scores, err
	})
}

// CacheTokenizer serves repeated counts from c.
func CacheTokenizer(next Tokenizer, c *Cache, role, model string) Tokenizer {
	return tokenizeFunc(func(ctx context.Context, text string) (int, error) {
		return throughCache(ctx, c, "tokenize", cacheKey("tokenize/v1", role, model, text),
			func(n *int) bool { return *n >= 0 },
			func() (int, error) { return next.Tokenize(ctx, text) })
	})
}
