package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Secret holds an API key. Every printable form (String, %v, %#v, JSON, YAML)
// shows "[redacted]"; only Reveal returns the value, and it is called only
// where a request header is built.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// String implements fmt.Stringer without revealing the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return s.String() }

// Format keeps every fmt verb from printing the value.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.String())) }

// MarshalJSON writes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", s.String())), nil }

// MarshalYAML writes the redacted form.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalText writes the redacted form (used by encoders that prefer it).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// RedactURL hides the password of a URL's user information
// ("http://user:key@host" → "http://user:[redacted]@host") and the value of
// every query parameter ("?token=X" → "?token=[redacted]": gateways take
// keys there), for every place that prints or records an endpoint URL. A
// string that does not parse as a URL (or has no scheme) is returned with
// everything before the last "@" (after any "://") hidden, and its query
// values hidden too.
func RedactURL(raw string) string {
	base, query, hasQuery := strings.Cut(raw, "?")
	out := redactUserinfo(base)
	if hasQuery {
		out += "?" + redactQuery(query)
	}
	return out
}

// redactQuery hides each value of a raw query string, keeping the names (and
// a fragment, which may hold anything, is hidden whole).
func redactQuery(q string) string {
	q, _, hasFrag := strings.Cut(q, "#")
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=" + redacted
		} else if p != "" {
			parts[i] = redacted // a bare value may be a key itself
		}
	}
	out := strings.Join(parts, "&")
	if hasFrag {
		out += "#" + redacted
	}
	return out
}

func redactUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") {
		scheme, rest, ok := strings.Cut(raw, "://")
		if !ok {
			scheme, rest = "", raw
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if ok {
				scheme += "://"
			}
			return scheme + redacted + rest[at:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); !has {
		return raw
	}
	// url.UserPassword would escape the brackets; splice the text instead.
	scheme, rest, _ := strings.Cut(raw, "://")
	at := strings.LastIndex(rest, "@")
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + ":" + redacted + rest[at:]
}
