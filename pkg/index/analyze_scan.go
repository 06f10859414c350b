package index

import "unicode/utf8"

// Byte classes of the ASCII word scanner: the UAX #29 word-break
// properties that ASCII characters have (Unicode's WordBreakProperty.txt,
// as blevesearch/segment compiles it): ALetter, Numeric, ExtendNumLet
// ("_"), and the middle characters that join two letters (MidLetter ":",
// MidNumLet ".", Single_Quote "'") or two digits (MidNum "," and ";",
// MidNumLet, Single_Quote). Every other ASCII character (space, other
// punctuation, CR, LF, the Newline controls, Double_Quote, which joins
// only Hebrew letters) is a token of its own that carries no term.
const (
	scanLetter = 1 << iota
	scanDigit
	scanConnector
	scanMidLetter
	scanMidNum

	scanWord = scanLetter | scanDigit | scanConnector
)

var scanClass = func() (c [256]uint8) {
	for b := 'a'; b <= 'z'; b++ {
		c[b] = scanLetter
		c[b-'a'+'A'] = scanLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = scanDigit
	}
	c['_'] = scanConnector
	c[':'] = scanMidLetter
	c[','], c[';'] = scanMidNum, scanMidNum
	c['.'], c['\''] = scanMidLetter|scanMidNum, scanMidLetter|scanMidNum
	return c
}()

// scanOther reports whether r is one of the non-ASCII characters that
// scanWords accepts: punctuation of chat text whose word-break property
// is Other, so that, like an ASCII space, each is a segment of its own
// that carries no term, and neither joins nor extends its neighbours.
// TestScanOther checks each against the segmenter.
func scanOther(r rune) bool {
	switch r {
	case '\u2014', '\u2013', '\u2026', '\u201c', '\u201d', '\u2022': // — – … “ ” •
		return true
	}
	return false
}

// scanWords is segmentWords for lines of ASCII and scanOther characters
// (most chat text), without the segmenter's state machine or the filters'
// token streams: a term is a maximal run of letters, digits and "_" in
// which a middle character stays only between two letters (WB6, WB7) or
// two digits (WB11, WB12), which are the only UAX #29 rules that join
// ASCII characters (WB5, WB8–WB10, WB13a, WB13b join every pair of
// letters, digits and "_"); then bleve's possessive filter (a final "'s"
// or "'S" goes), lower case, and the English stop words. It reports
// false, having gathered nothing, for any other line, which the
// segmenter reads. FuzzScanWords and TestScanWords compare it with
// segmentWords.
func scanWords(line string, sc *segScratch) bool {
	for i := 0; i < len(line); {
		if line[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		if !scanOther(r) {
			return false
		}
		i += size
	}
	stop := mustAnalyzers().stop
	sc.buf = append(sc.buf[:0], line...)
	buf := sc.buf
	n := len(buf)
	for i := 0; i < n; {
		k := scanClass[buf[i]] // 0 for the bytes of scanOther's characters
		if k&scanWord == 0 {
			i++
			continue
		}
		start, last := i, k
		for i++; i < n; {
			k = scanClass[buf[i]]
			if k&scanWord != 0 {
				last = k
				i++
				continue
			}
			if i+1 < n {
				next := scanClass[buf[i+1]]
				if last&scanLetter != 0 && k&scanMidLetter != 0 && next&scanLetter != 0 ||
					last&scanDigit != 0 && k&scanMidNum != 0 && next&scanDigit != 0 {
					last = next
					i += 2
					continue
				}
			}
			break
		}
		term := buf[start:i]
		if m := len(term); m >= 2 && term[m-2] == '\'' && (term[m-1] == 's' || term[m-1] == 'S') {
			term = term[:m-2]
		}
		for j, c := range term {
			if 'A' <= c && c <= 'Z' {
				term[j] = c + 'a' - 'A'
			}
		}
		if len(term) == 0 {
			continue
		}
		if _, ok := stop[string(term)]; ok {
			continue
		}
		sc.add(wordStem(term))
	}
	return true
}
