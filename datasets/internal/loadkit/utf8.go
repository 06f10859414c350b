package loadkit

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// utf8Reader passes bytes through and fails at the first byte that is not
// valid UTF-8, naming its offset: encoding/json would otherwise replace it
// with U+FFFD and a corrupt file would load as if it were fine.
type utf8Reader struct {
	r       io.Reader
	buf     []byte
	pending []byte // checked bytes not yet handed out
	carry   []byte // an incomplete rune held back until its next bytes come
	off     int64  // bytes checked so far
	err     error  // the error to return once pending is empty
}

// ValidUTF8 wraps r so that reading fails at the first invalid UTF-8 byte.
func ValidUTF8(r io.Reader) io.Reader { return &utf8Reader{r: r, buf: make([]byte, 32<<10)} }

func (u *utf8Reader) Read(p []byte) (int, error) {
	for len(u.pending) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.pending)
	u.pending = u.pending[n:]
	return n, nil
}

// fill reads the next chunk, checks it and makes it pending (or sets err).
func (u *utf8Reader) fill() {
	n := copy(u.buf, u.carry)
	u.carry = u.carry[:0]
	m, err := u.r.Read(u.buf[n:])
	n += m
	keep := 0
	if err == nil {
		keep = incompleteTail(u.buf[:n])
	}
	good := u.buf[:n-keep]
	if !utf8.Valid(good) {
		i := firstInvalid(good)
		u.pending = good[:i]
		u.err = fmt.Errorf("invalid UTF-8 at byte offset %d", u.off+int64(i))
		return
	}
	u.carry = append(u.carry, u.buf[n-keep:n]...)
	u.off += int64(len(good))
	u.pending = good
	switch {
	case err == io.EOF && len(u.carry) > 0:
		u.err = fmt.Errorf("invalid UTF-8 at byte offset %d (truncated character at the end)", u.off)
	case err != nil:
		u.err = err
	}
}

// incompleteTail is the length of a rune begun but not finished at the end
// of b (0 when b ends on a rune boundary or with an invalid byte, which
// Valid then reports).
func incompleteTail(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xC0 == 0x80 {
			continue // a continuation byte: look further back
		}
		if c >= 0xC0 && !utf8.FullRune(b[len(b)-k:]) {
			return k
		}
		return 0
	}
	return 0
}

// FirstInvalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8, or -1 when b is valid.
func FirstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	return firstInvalid(b)
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// CheckUTF8 reports the first invalid UTF-8 byte of data as an error naming
// its offset (for loaders that read a file whole).
func CheckUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	return fmt.Errorf("invalid UTF-8 at byte offset %d", firstInvalid(data))
}
