package importer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyStr is one Python string literal of a source, or several that Python
// joins (adjacent literals inside brackets, or on one line, or across a
// backslash continuation).
type pyStr struct {
	// start and end span the literal in the source, prefixes and quotes
	// included.
	start, end int
	// value is the text with escapes undone (raw literals kept as written);
	// an f-string keeps its {fields}, and the braces of a plain literal
	// joined to an f-string are doubled, as the f-string reads them.
	value string
	// fstring reports an f-string (any joined part with the f prefix).
	fstring bool
	// depth is the bracket depth at the literal's start.
	depth int
}

// pyStrings reads the string literals of Python source src in order,
// skipping comments; joined literals come back as one. It never fails: a
// literal left open ends the source.
func pyStrings(src string) []pyStr {
	var out []pyStr
	depth := 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return join(src, out)
			}
			i += j
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			i++
		case c == '"' || c == '\'':
			s := readLiteral(src, i, "")
			s.depth = depth
			out = append(out, s)
			i = s.end
		case isIdentByte(c):
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && isPrefix(src[i:j]) {
				s := readLiteral(src, j, strings.ToLower(src[i:j]))
				s.start, s.depth = i, depth
				out = append(out, s)
				j = s.end
			}
			i = j
		default:
			i++
		}
	}
	return join(src, out)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// isPrefix reports a string prefix: r, u, f, b and their pairs, any case.
func isPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "f", "b", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

// readLiteral reads the literal whose opening quote is at q, with prefix.
func readLiteral(src string, q int, prefix string) pyStr {
	quote := src[q : q+1]
	if strings.HasPrefix(src[q:], quote+quote+quote) {
		quote = src[q : q+3]
	}
	body := q + len(quote)
	i := body
	end := len(src)
	closed := len(src)
	for i < len(src) {
		if src[i] == '\\' {
			i += 2
			continue
		}
		if len(quote) == 1 && src[i] == '\n' {
			closed, end = i, i // an unterminated one-line literal
			break
		}
		if strings.HasPrefix(src[i:], quote) {
			closed, end = i, i+len(quote)
			break
		}
		i++
	}
	text := src[body:closed]
	if !strings.Contains(prefix, "r") {
		text = pyUnescape(text)
	}
	return pyStr{start: q, end: end, value: text, fstring: strings.Contains(prefix, "f")}
}

// pyUnescape undoes the escapes of a Python literal's text: \n \t \r \a \b
// \f \v \0, octal, \xhh, \uXXXX, \UXXXXXXXX, escaped quotes and
// backslashes, and a backslash before a newline (a continuation); other
// backslashes stay as written, as in Python.
func pyUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '\n':
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '"', '\'':
			b.WriteByte(c)
		case 'x', 'u', 'U':
			n := 2
			switch c {
			case 'u':
				n = 4
			case 'U':
				n = 8
			}
			if i+1+n <= len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 32)
				b.WriteRune(rune(v))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// join merges the literals Python joins: separated only by blanks and
// comments, and inside brackets, on one line, or across a backslash
// continuation.
func join(src string, in []pyStr) []pyStr {
	var out []pyStr
	for _, s := range in {
		if n := len(out); n > 0 && joined(src[out[n-1].end:s.start], s.depth > 0) {
			p := &out[n-1]
			switch {
			case p.fstring && !s.fstring:
				s.value = doubleBraces(s.value)
			case !p.fstring && s.fstring:
				p.value = doubleBraces(p.value)
			}
			p.value += s.value
			p.fstring = p.fstring || s.fstring
			p.end = s.end
			continue
		}
		out = append(out, s)
	}
	return out
}

// joined reports whether literals separated by gap are joined: gap holds
// nothing but blanks, comments and continuations, and the literals are
// bracketed, on one line, or across a continuation.
func joined(gap string, bracketed bool) bool {
	for _, line := range strings.Split(gap, "\n") {
		code := line
		if i := strings.IndexByte(code, '#'); i >= 0 {
			code = code[:i]
		}
		t := strings.TrimSpace(code)
		if t == `\` {
			continue
		}
		if t != "" {
			return false
		}
	}
	return bracketed || !strings.Contains(gap, "\n") || strings.Contains(gap, "\\\n")
}

// braceDoubler doubles braces, as an f-string reads a literal brace.
var braceDoubler = strings.NewReplacer("{", "{{", "}", "}}")

func doubleBraces(s string) string { return braceDoubler.Replace(s) }
