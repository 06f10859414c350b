package tokens

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// paraCases join texts at blank lines in the ways a pre-token or an added
// token might cross the cut; some cut, some (non-ASCII or white space
// after the blank line) must not.
var paraCases = []string{
	"", "\n\n", "a\n\nb", "end.\n\nNext", "end \n\nNext", "end\n\n\n\nNext", "end?!\n\n\"Quoted\"",
	"it\n\n's", "x\n\n'S", "1\n\n2", "a\r\n\r\nB", "a\n\n B", "a\n\n\tB", "a\n\nÉcole", "a\n\n\u0301b",
	"<|im_end|>\n\n<|im_start|>user", "<|im_\n\nend|>", "ok\n\n<think>\n\n</think>\n\nDone", "😀\n\n😀", "a\n\n\x7fb",
	"[2025-06-16 14:42] User: The reviews came back.\nAssistant: Let's plan.\n\nGroup overlapping comments.\n\n1) What the Benchmarks Miss — frames the gap.\n2) Structure Before Scale.\n\n- a bullet\n\n**Bold** and `code` cost $1,200 (about 15%).",
}

// TestCountParas: the paragraph sum is the whole text's count, on the
// cases, on the reference corpus joined at blank lines, and with each
// paragraph remembered (a second pass).
func TestCountParas(t *testing.T) {
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	texts := append([]string(nil), paraCases...)
	refs := loadReference(t)
	for i := 0; i+2 < len(refs); i += 3 {
		texts = append(texts, refs[i].Text+"\n\n"+refs[i+1].Text+"\n\n"+refs[i+2].Text)
	}
	texts = append(texts, strings.Join(paraCases, "\n\n"), strings.Repeat(paraCases[len(paraCases)-1]+"\n\n", 40))
	textmemo.ResetAll()
	for pass := range 2 {
		for _, s := range texts {
			if got, want := q.countParas(s), q.count(s); got != want {
				t.Errorf("pass %d: countParas(%q) = %d, count %d", pass, s, got, want)
			}
		}
	}
}

// TestParaEnd: cuts fall after a blank line, before an ASCII character
// that is not white space, and nowhere else.
func TestParaEnd(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"a\nb", 3}, {"a\n\nb", 3}, {"a\n\n b", 5}, {"a\n\nÉ", 5}, {"a\n\n\n\nb\n\nc", 5}, {"\n\nb", 2},
	}
	for _, tt := range tests {
		if got := paraEnd(tt.s); got != tt.want {
			t.Errorf("paraEnd(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func FuzzCountParas(f *testing.F) {
	for _, s := range paraCases {
		f.Add(s)
	}
	q, err := NewQwen3()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		textmemo.ResetAll()
		for _, x := range []string{s, s + "\n\nA" + s, "x\n\n" + s + "\n\n" + s} {
			if got, want := q.countParas(x), q.count(x); got != want {
				t.Fatalf("countParas(%q) = %d, count %d", x, got, want)
			}
		}
	})
}
