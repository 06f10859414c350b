package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error kinds. The retry decorator retries exactly ErrTransport, ErrTimeout,
// ErrMalformed and a *StatusError with code 429 or 5xx; everything else
// (other 4xx, invalid requests, cancelled contexts) is returned at once.
var (
	// ErrTransport wraps connection failures: refused, reset, dropped.
	ErrTransport = errors.New("transport error")
	// ErrTimeout is a request that outlived its endpoint's timeout while
	// the caller's context was still alive.
	ErrTimeout = errors.New("request timed out")
	// ErrMalformed is a response the server cut short or garbled:
	// truncated stream, invalid JSON, no choices, wrong number of results.
	// It is retried because on a healthy server it comes from a dropped
	// connection or a proxy, not from the request.
	ErrMalformed = errors.New("malformed response")
	// ErrBadRequest is a request arbor refuses to send (no messages,
	// invalid JSON schema, ...). Never retried.
	ErrBadRequest = errors.New("invalid request")
)

// StatusError is a non-2xx HTTP reply.
type StatusError struct {
	Code int
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
	// Msg is a short excerpt of the error body.
	Msg string
}

// Error reads "http 503 Service Unavailable: <body excerpt>".
func (e *StatusError) Error() string {
	s := "http " + strconv.Itoa(e.Code) + " " + http.StatusText(e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Retryable reports whether err is worth another attempt and how long the
// server asked to wait (0 if it did not say).
func Retryable(err error) (bool, time.Duration) {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusTooManyRequests || se.Code >= 500, se.RetryAfter
	}
	return errors.Is(err, ErrTransport) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrMalformed), 0
}

// endpointFault reports whether err says something about the endpoint's
// health (so it counts towards ejection). A 429 means "busy", not "broken".
func endpointFault(err error) bool {
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusTooManyRequests {
		return false
	}
	retry, _ := Retryable(err)
	return retry
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). Unparseable or negative values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 24*3600 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 && d <= 24*time.Hour {
			return d
		}
	}
	return 0
}

// statusError builds a *StatusError from a reply, keeping a short body excerpt.
func statusError(code int, header http.Header, body []byte) *StatusError {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return &StatusError{Code: code, RetryAfter: parseRetryAfter(header.Get("Retry-After"), time.Now()), Msg: msg}
}

// transportErr classifies an error from http.Client.Do or a body read. A
// cancelled caller context is passed through unchanged so that it is never
// mistaken for a sick endpoint.
func transportErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return fmt.Errorf("%w: %v", ErrTransport, err)
}

// malformed wraps a decoding problem as ErrMalformed.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// redacted hides an API key in an error message (a server may echo
// headers back in its error body) while keeping errors.Is/As working.
type redacted struct {
	err error
	key string
}

func (r redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.key, "[redacted]") }
func (r redacted) Unwrap() error { return r.err }

func redact(err error, key string) error {
	if err == nil || key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return redacted{err, key}
}
