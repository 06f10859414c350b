package config

import "fmt"

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
