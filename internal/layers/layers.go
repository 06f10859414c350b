// Package layers checks that a module's imports run only downhill: every
// package sits in one layer of a table ordered top to bottom, and a
// package's non-test files may import packages of lower layers, and of its
// own layer only where the table allows that sideways import by name.
//
// The module's own table, and the test that applies it to every package of
// the module, are in layers_test.go; this file is the checker, kept apart
// so that it can be tested on small synthetic graphs.
//
// Only non-test files count: a test may import whatever it exercises (a
// benchmark of pkg/arbormem may build its input from a dataset). Test files
// are where test helpers belong, so production files may not import a
// package named for tests (its last path element ends in "test"), unless
// the importer is itself such a helper.
package layers

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Layer is one level of the table. Packages are module-relative import
// paths: "." is the module root, "x" is the package x, and "x/..." is x and
// every package below it.
type Layer struct {
	Name     string
	Packages []string
}

// Edge is an import allowed between two packages of the same layer; From
// and To are patterns as in Layer.Packages.
type Edge struct {
	From, To string
}

// Rules is a layer table, top layer first, and the sideways imports it
// allows. TableFile names where the table is written, for the messages.
type Rules struct {
	Layers    []Layer
	Sideways  []Edge
	TableFile string
}

// Graph maps each module-relative package path to the module-relative
// packages its non-test files import (imports outside the module are left
// out: the standard library and third parties sit below every layer).
type Graph map[string][]string

// match reports whether the module-relative path pkg matches pattern, and
// how specifically: an exact name beats a pattern, and a longer pattern
// beats a shorter one, so "pkg/llm" can sit apart from "pkg/...".
func match(pattern, pkg string) (bool, int) {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == base || strings.HasPrefix(pkg, base+"/") {
			return true, 2 * len(base)
		}
		return false, 0
	}
	return pattern == pkg, 2*len(pattern) + 1
}

// layerOf returns the index of the layer holding pkg and the entry that
// placed it there, or -1 when no entry matches.
func (r Rules) layerOf(pkg string) (int, string) {
	best, bestScore, entry := -1, -1, ""
	for i, l := range r.Layers {
		for _, p := range l.Packages {
			if ok, score := match(p, pkg); ok && score > bestScore {
				best, bestScore, entry = i, score, p
			}
		}
	}
	return best, entry
}

// sidewaysEdge returns the index of the Sideways entry allowing from to
// import to, or -1.
func (r Rules) sidewaysEdge(from, to string) int {
	for i, e := range r.Sideways {
		okFrom, _ := match(e.From, from)
		okTo, _ := match(e.To, to)
		if okFrom && okTo {
			return i
		}
	}
	return -1
}

// IsTestHelper reports whether a module-relative package path names a test
// helper (memorytest, tabletest, loadtest): its last element ends in "test".
func IsTestHelper(pkg string) bool {
	return strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test")
}

func display(pkg string) string {
	if pkg == "." {
		return "the module root"
	}
	return pkg
}

// Check returns one message per problem, sorted: a package in no layer, an
// import running up the layers, a sideways import the table does not
// allow, a production import of a test helper, and table entries or
// sideways allowances that no longer match anything (so the table stays
// true as packages move).
func (r Rules) Check(g Graph) []string {
	var problems []string
	usedEntry := map[string]bool{}
	usedEdge := make([]bool, len(r.Sideways))
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if li, entry := r.layerOf(p); li < 0 {
			problems = append(problems, fmt.Sprintf("%s is in no layer: add it to the layer table in %s "+
				"(and to docs/ARCHITECTURE.md), in the lowest layer that holds everything it imports",
				display(p), r.TableFile))
		} else {
			usedEntry[entry] = true
		}
	}
	for _, from := range pkgs {
		fl, _ := r.layerOf(from)
		for _, to := range g[from] {
			if IsTestHelper(to) && !IsTestHelper(from) {
				problems = append(problems, fmt.Sprintf("%s imports %s in a non-test file: %s is a test helper; "+
					"import it from _test.go files only, or move what production needs out of it and rename it for what it is",
					display(from), to, to))
			}
			tl, _ := r.layerOf(to)
			if fl < 0 || tl < 0 {
				continue // reported above
			}
			switch {
			case fl < tl: // downhill
			case fl > tl:
				problems = append(problems, fmt.Sprintf("%s (layer %q) imports %s (layer %q, above it): "+
					"imports run down the layers only; move what %s needs from %s down to a layer both may import, "+
					"or, if the layering itself should change, edit the table in %s and docs/ARCHITECTURE.md",
					display(from), r.Layers[fl].Name, display(to), r.Layers[tl].Name, display(from), display(to), r.TableFile))
			default:
				if i := r.sidewaysEdge(from, to); i >= 0 {
					usedEdge[i] = true
					continue
				}
				problems = append(problems, fmt.Sprintf("%s imports %s, both in layer %q: a sideways import must be "+
					"allowed by name in the Sideways list in %s; add it there if it is sound, "+
					"otherwise move what %s needs down a layer",
					display(from), display(to), r.Layers[fl].Name, r.TableFile, display(from)))
			}
		}
	}
	for _, l := range r.Layers {
		for _, p := range l.Packages {
			if !usedEntry[p] {
				problems = append(problems, fmt.Sprintf("layer %q lists %s, which matches no package: "+
					"remove it from the table in %s", l.Name, p, r.TableFile))
			}
		}
	}
	for i, e := range r.Sideways {
		if !usedEdge[i] {
			problems = append(problems, fmt.Sprintf("the sideways import %s -> %s is allowed but no longer made: "+
				"remove it from the Sideways list in %s", e.From, e.To, r.TableFile))
		}
	}
	sort.Strings(problems)
	return problems
}

// ModuleRoot walks up from dir to the nearest go.mod and returns its folder
// and the module path it declares.
func ModuleRoot(dir string) (root, module string, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("find module root: %w", err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
			}
			if err := sc.Err(); err != nil {
				return "", "", fmt.Errorf("read %s: %w", f.Name(), err)
			}
			return "", "", fmt.Errorf("%s declares no module", f.Name())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Load reads the non-test imports of every package of the module rooted at
// root, using go/build (import clauses only, no type checking, no
// subprocess). It skips what the go command skips: testdata, vendor,
// folders starting with "." or "_", and nested modules. Files excluded by
// build constraints for the current platform are not read.
func Load(root, module string) (Graph, error) {
	g := Graph{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		bp, err := build.Default.ImportDir(path, 0)
		if err != nil {
			var noGo *build.NoGoError
			if errors.As(err, &noGo) {
				return nil
			}
			return fmt.Errorf("read imports of %s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		from := filepath.ToSlash(rel)
		var imports []string
		for _, imp := range bp.Imports {
			if imp == module {
				imports = append(imports, ".")
			} else if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, r)
			}
		}
		g[from] = imports
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load import graph of %s: %w", module, err)
	}
	return g, nil
}
