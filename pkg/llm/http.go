package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// NewHTTPClient returns the http.Client every endpoint client shares. It has
// no overall timeout: each request gets its endpoint's timeout through its
// context (pool), and a streamed answer may legitimately take minutes.
func NewHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 256, // ≥ any sensible max_inflight, so connections are reused, not churned
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}}
}

// serverRoot strips a trailing "/v1" so that both "http://h:8000" and
// "http://h:8000/v1" may be configured: vLLM serves /tokenize and TEI serves
// /rerank at the root, the OpenAI routes under /v1. It is a path operation:
// a query string ("?token=X", which some gateways read keys from) is kept
// aside, never appended to.
func serverRoot(raw string) string {
	base, _, _ := strings.Cut(raw, "?")
	base, _, _ = strings.Cut(base, "#")
	base = strings.TrimRight(base, "/")
	return strings.TrimSuffix(base, "/v1")
}

// endpointQuery is the query string of an endpoint URL ("" when none),
// which every request to the endpoint carries.
func endpointQuery(raw string) string {
	_, q, _ := strings.Cut(raw, "?")
	q, _, _ = strings.Cut(q, "#")
	return q
}

// EndpointURL is the URL of path (starting with "/") on the server of the
// endpoint URL raw, keeping raw's query: "http://h:1/v1?token=X" and
// "/v1/models" give "http://h:1/v1/models?token=X".
func EndpointURL(raw, path string) string {
	u := serverRoot(raw) + path
	if q := endpointQuery(raw); q != "" {
		u += "?" + q
	}
	return u
}

// withQuery adds the endpoint's query parameters to a request URL built
// without them (go-openai appends its route to the base URL).
func withQuery(u *url.URL, query string) {
	if query == "" {
		return
	}
	if u.RawQuery == "" {
		u.RawQuery = query
		return
	}
	u.RawQuery = query + "&" + u.RawQuery
}

// scrubURLError hides the query values and password of the URL that
// net/http puts in its errors ("Post \"http://h?token=X/...\": refused"),
// which would otherwise reach logs and error samples.
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = config.RedactURL(ue.URL)
	}
	return err
}

// postJSON sends in as JSON and decodes a 2xx reply into out (by decode).
// Non-2xx replies become *StatusError; connection problems ErrTransport;
// undecodable bodies ErrMalformed.
func postJSON(ctx context.Context, hc *http.Client, url, key string, in any, decode func([]byte) error) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%w: encode request: %v", ErrBadRequest, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return transportErr(ctx, scrubURLError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp.StatusCode, resp.Header, b)
	}
	if err != nil {
		return transportErr(ctx, fmt.Errorf("read body: %w", err))
	}
	return decode(b)
}

// exchange carries per-request state between a go-openai call and the doer
// below it: fields to write into the JSON body, and what the reply said.
type exchange struct {
	patch      map[string]any
	sent       bool // the request reached http.Client.Do
	status     int
	retryAfter time.Duration
	stream     *doneTracker
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// openaiDoer is go-openai's HTTPClient. go-openai v1.43.0 cannot send
// `temperature: 0` (omitempty on a float32) nor vLLM extras such as top_k
// (../shared/notes/libraries.md), so the doer rewrites the JSON body with the
// exchange's patch; it also records the status and Retry-After, which
// go-openai's error types drop, and wraps streamed bodies so a stream cut
// before `data: [DONE]` can be told from a finished one.
type openaiDoer struct {
	hc    *http.Client
	query string // the endpoint URL's query, added to every request
}

func (d openaiDoer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil && len(ex.patch) > 0 && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: read request body: %v", ErrBadRequest, err)
		}
		if b, err = patchJSON(b, ex.patch); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.ContentLength = int64(len(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	if ex != nil {
		ex.sent = true
	}
	withQuery(req.URL, d.query)
	resp, err := d.hc.Do(req)
	if err != nil {
		return resp, scrubURLError(err)
	}
	if ex == nil {
		return resp, nil
	}
	ex.status = resp.StatusCode
	ex.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		ex.stream = &doneTracker{rc: resp.Body}
		resp.Body = ex.stream
	}
	return resp, nil
}

// patchJSON sets top-level fields of a JSON object.
func patchJSON(body []byte, patch map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: request body is not a JSON object: %v", ErrBadRequest, err)
	}
	for k, v := range patch {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: field %s: %v", ErrBadRequest, k, err)
		}
		m[k] = b
	}
	return json.Marshal(m)
}

// doneTracker passes a server-sent-event body through and notes whether the
// terminating `data: [DONE]` line went by. go-openai returns io.EOF both for
// that line and for a body that simply ends, so without this a truncated
// stream would look like a finished one.
type doneTracker struct {
	rc   io.ReadCloser
	line []byte // start of the current line, at most 16 bytes
	done bool
}

func (t *doneTracker) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	for _, c := range p[:n] {
		switch {
		case c == '\n':
			t.done = t.done || isDoneLine(t.line)
			t.line = t.line[:0]
		case len(t.line) < 16:
			t.line = append(t.line, c)
		}
	}
	// A last line without its newline still counts.
	if err == io.EOF {
		t.done = t.done || isDoneLine(t.line)
	}
	return n, err
}

func isDoneLine(l []byte) bool {
	l = bytes.TrimSpace(l)
	return bytes.Equal(l, []byte("data: [DONE]")) || bytes.Equal(l, []byte("data:[DONE]"))
}

func (t *doneTracker) Close() error { return t.rc.Close() }
