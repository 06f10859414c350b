package loadkit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestValidUTF8Reader(t *testing.T) {
	good := strings.Repeat("héllo wörld ✓ 😀 ", 500)
	for _, r := range []io.Reader{
		ValidUTF8(strings.NewReader(good)),
		ValidUTF8(iotest.OneByteReader(strings.NewReader(good))),
		ValidUTF8(iotest.HalfReader(strings.NewReader(good))),
		iotest.OneByteReader(ValidUTF8(strings.NewReader(good))),
	} {
		b, err := io.ReadAll(r)
		if err != nil || string(b) != good {
			t.Fatalf("valid text: %v (%d of %d bytes)", err, len(b), len(good))
		}
	}
	bad := []byte(good[:1000] + "\xff" + good[1000:])
	for _, r := range []io.Reader{ValidUTF8(bytes.NewReader(bad)), ValidUTF8(iotest.OneByteReader(bytes.NewReader(bad)))} {
		_, err := io.ReadAll(r)
		if err == nil || !strings.Contains(err.Error(), "byte offset 1000") {
			t.Errorf("invalid byte: %v", err)
		}
	}
	if _, err := io.ReadAll(ValidUTF8(strings.NewReader("ok \xe2\x9c"))); err == nil || !strings.Contains(err.Error(), "offset 3") {
		t.Errorf("truncated rune at the end: %v", err)
	}
	if err := CheckUTF8(bad); err == nil || !strings.Contains(err.Error(), "1000") {
		t.Errorf("CheckUTF8: %v", err)
	}
}

func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "é", "\xff", "\xe2\x9c", "😀x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := io.ReadAll(ValidUTF8(iotest.OneByteReader(bytes.NewReader(data))))
		if (err == nil) != (CheckUTF8(data) == nil) {
			t.Fatalf("reader error %v, CheckUTF8 %v", err, CheckUTF8(data))
		}
		if err == nil && !bytes.Equal(b, data) {
			t.Fatal("valid input changed")
		}
	})
}

// xs reads n bytes of 'x' without holding them.
type xs struct{ n int64 }

func (r *xs) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > r.n {
		k = r.n
	}
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.n -= k
	return int(k), nil
}

// TestElementBound: one element beyond MaxElement is an error, not a
// gigabyte allocation; elements below it decode.
func TestElementBound(t *testing.T) {
	decode := func(size int64) error {
		r := io.MultiReader(strings.NewReader(`[{"a": 1}, "`), &xs{n: size}, strings.NewReader(`", {"b": 2}]`))
		return DecodeArray(context.Background(), r, 0, nil, func(i int, dec *json.Decoder) error {
			var v any
			return dec.Decode(&v)
		})
	}
	if err := decode(1 << 20); err != nil {
		t.Fatalf("a 1 MB element: %v", err)
	}
	if err := decode(MaxElement + 1<<20); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("an element beyond the bound: %v", err)
	}
}
