package table

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
)

// WriteAll writes t as dir/name.md, name.csv, name.tex and name.json, each
// atomically (a reader never sees a half-written table). The LaTeX label is
// "tab:<name>". A table whose cells do not line up with its columns is
// refused before anything is written.
func WriteAll(dir, name string, t Table) error {
	return WriteAllLabel(dir, name, "tab:"+name, t)
}

// WriteAllLabel is WriteAll with the LaTeX \label given: tables of several
// runs in one document need distinct labels ("tab:<run>:main"). A table
// with Split > 0 is typeset as two floats cut after its first Split groups
// (SplitGroups), labelled label and label+"-2".
func WriteAllLabel(dir, name, label string, t Table) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return err
	}
	csvData, err := t.CSV()
	if err != nil {
		return err
	}
	var tex []byte
	for i, part := range t.SplitGroups(t.Split) {
		l := label
		if i > 0 {
			l = fmt.Sprintf("%s-%d", label, i+1)
		}
		b, err := part.LaTeX(l)
		if err != nil {
			return err
		}
		if i > 0 {
			tex = append(tex, '\n')
		}
		tex = append(tex, b...)
	}
	js, err := t.JSON()
	if err != nil {
		return err
	}
	files := []struct {
		ext  string
		data []byte
	}{
		{".md", []byte(t.Markdown())},
		{".csv", csvData},
		{".tex", tex},
		{".json", js},
	}
	for _, f := range files {
		p := filepath.Join(dir, name+f.ext)
		if err := record.WriteFileAtomic(p, f.data); err != nil {
			return fmt.Errorf("write table %s: %w", p, err)
		}
	}
	return nil
}

// WriteSVG draws p and writes it to dir/name.svg atomically.
func WriteSVG(dir, name string, p Plot) error {
	if err := checkName(name); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := LinePlotSVG(&buf, p); err != nil {
		return err
	}
	path := filepath.Join(dir, name+".svg")
	if err := record.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	return nil
}

// checkName keeps output names to plain file names inside dir.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("table name %q: want a plain file name without path separators", name)
	}
	return nil
}
