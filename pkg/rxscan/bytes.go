package rxscan

// Byte tests with RE2's ASCII meanings (\b, \s, \d), for candidate
// finders that must agree with the regexps they stand in front of.

func IsDigitByte(b byte) bool { return '0' <= b && b <= '9' }

// isREWordByte is RE2's ASCII word character ([0-9A-Za-z_]); a byte of a
// multi-byte rune is not one, as the rune is not.
func IsWordByte(b byte) bool {
	return IsDigitByte(b) || 'a' <= b|0x20 && b|0x20 <= 'z' || b == '_'
}

// WordStart reports whether \b holds before the word character at i.
func WordStart(text string, i int) bool { return i == 0 || !IsWordByte(text[i-1]) }

// BoundaryAt reports whether RE2's \b holds at i.
func BoundaryAt(text string, i int) bool {
	return (i > 0 && IsWordByte(text[i-1])) != (i < len(text) && IsWordByte(text[i]))
}

// ByteSet is a set of bytes: the bytes a match can start with, tested in
// the candidate finders' inner loops by one load.
type ByteSet [256]bool

func BytesOf(s string) *ByteSet {
	var b ByteSet
	for i := range len(s) {
		b[s[i]] = true
	}
	return &b
}

// IndexIn returns the first i >= from with text[i] in set, or -1.
func IndexIn(text string, from int, set *ByteSet) int {
	for i := from; i < len(text); i++ {
		if set[text[i]] {
			return i
		}
	}
	return -1
}

// IndexDigit returns the first i >= from where text[i] is an ASCII digit,
// or -1 (indexIn with the set of digits; indexDigitRef in the tests),
// eight bytes at a time: digits are rare in prose, and the entity scans
// look for them over whole interactions. A word x of eight bytes may hold
// a digit when some byte of x^0x30… is below 10, which the bit trick
// (t-0x0A…)&^t&0x80… tells; the bytes of such a word are then looked at
// one by one, so the trick only skips words, never decides.
func IndexDigit(text string, from int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := max(from, 0)
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		if t := x ^ 0x30*ones; (t-10*ones)&^t&highs != 0 {
			for k := i; k < i+8; k++ {
				if IsDigitByte(text[k]) {
					return k
				}
			}
		}
	}
	for ; i < len(text); i++ {
		if IsDigitByte(text[i]) {
			return i
		}
	}
	return -1
}

func SkipSpace(text string, i int) int {
	for i < len(text) && IsSpace(text[i]) {
		i++
	}
	return i
}

func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
