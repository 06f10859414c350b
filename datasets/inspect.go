package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// Release is a published benchmark file and its sha256, so `arbor datasets
// inspect` can tell a user whether they hold the official bytes.
type Release struct {
	// File is the official file name ("locomo10.json").
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes,omitempty"`
	// Source says where the file is published.
	Source string `json:"source,omitempty"`
}

var (
	releases = map[string][]Release{}
	listers  = map[string]func(path string) ([]string, error){}
)

// RegisterFiles tells Inspect which files a benchmark reads from path, so
// a directory's hash covers exactly those (BEAM: each chat's chat file and
// probing questions, not the pickles and plans beside them, nor other
// splits). Benchmarks without one hash every .json file under a directory.
func RegisterFiles(benchmark string, list func(path string) ([]string, error)) {
	mu.Lock()
	defer mu.Unlock()
	listers[benchmark] = list
}

// RegisterRelease records a known official file of a benchmark; loaders call
// it from init next to Register.
func RegisterRelease(benchmark string, r Release) {
	mu.Lock()
	defer mu.Unlock()
	releases[benchmark] = append(releases[benchmark], r)
}

// Releases lists the known official files of a benchmark.
func Releases(benchmark string) []Release {
	mu.RLock()
	defer mu.RUnlock()
	return append([]Release(nil), releases[benchmark]...)
}

// CategoryCount is the number of questions in one category.
type CategoryCount struct {
	Category string `json:"category"`
	// Name is the category's readable name where the code is a number
	// (LoCoMo "2" is "temporal").
	Name      string `json:"name,omitempty"`
	Questions int    `json:"questions"`
}

// Summary describes a loaded benchmark file: what `arbor datasets inspect`
// prints and what a run manifest can record.
type Summary struct {
	Benchmark string `json:"benchmark"`
	Path      string `json:"path"`
	// SHA256 is the file's hash; for a directory it is the tree hash
	// (HashFiles) of the files the benchmark reads (RegisterFiles), or of
	// every .json file in it.
	SHA256       string          `json:"sha256"`
	Files        int             `json:"files"`
	Bytes        int64           `json:"bytes"`
	Episodes     int             `json:"episodes"`
	Sessions     int             `json:"sessions"`
	Interactions int             `json:"interactions"`
	Turns        int             `json:"turns"`
	Questions    int             `json:"questions"`
	Abstentions  int             `json:"abstentions"`
	WithEvidence int             `json:"with_evidence"`
	Categories   []CategoryCount `json:"categories"`
	// Selection describes the episodes counted when not all were
	// (--episodes, --limit).
	Selection string `json:"selection,omitempty"`
	// Release is the known official file the hash matches, if any.
	Release *Release `json:"release,omitempty"`
	// Warning is set when the hash differs from the known release of the
	// same file name, or when no hash is recorded for it.
	Warning string `json:"warning,omitempty"`
}

// Inspect reads benchmark name from path and summarises it, hash included.
func Inspect(ctx context.Context, name, path string, opt Options) (Summary, error) {
	return InspectSelected(ctx, name, path, opt, Selection{})
}

// Selection narrows what InspectSelected counts: the named episodes (all
// when empty), then the first Limit of them (all when 0).
type Selection struct {
	Episodes []string
	Limit    int
}

// String describes a non-empty selection ("" otherwise).
func (sel Selection) String() string {
	var parts []string
	if len(sel.Episodes) > 0 {
		parts = append(parts, "episodes "+strings.Join(sel.Episodes, ","))
	}
	if sel.Limit > 0 {
		parts = append(parts, fmt.Sprintf("first %d", sel.Limit))
	}
	return strings.Join(parts, ", ")
}

// InspectSelected is Inspect over the episodes sel picks. Episodes are
// decoded one at a time (Each) and counted as they come, so memory stays
// flat in the file's size; decoding stops after the last selected episode.
// The hash still covers the whole file.
func InspectSelected(ctx context.Context, name, path string, opt Options, sel Selection) (Summary, error) {
	want := map[string]bool{}
	for _, id := range sel.Episodes {
		want[id] = true
	}
	sm := newSummarizer(name)
	err := Each(ctx, name, path, opt, func(e Episode) error {
		if len(sel.Episodes) > 0 {
			if !want[e.ID] {
				return nil
			}
			delete(want, e.ID)
		}
		sm.add(&e)
		if (sel.Limit > 0 && sm.s.Episodes >= sel.Limit) || (len(sel.Episodes) > 0 && len(want) == 0) {
			return ErrStop
		}
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	if len(want) > 0 && (sel.Limit == 0 || sm.s.Episodes < sel.Limit) {
		missing := make([]string, 0, len(want))
		for id := range want {
			missing = append(missing, id)
		}
		sort.Strings(missing)
		return Summary{}, fmt.Errorf("inspect %s: episodes not in %s: %s", name, path, strings.Join(missing, ", "))
	}
	s := sm.summary()
	s.Selection = sel.String()
	s.Path = path
	if path == "" {
		// The benchmark's embedded default (BranchMemEval): nothing to hash
		// against a release; the binary's commit identifies it.
		s.Path = "(embedded default)"
		return s, nil
	}
	mu.RLock()
	list := listers[name]
	mu.RUnlock()
	var sum string
	var files int
	var n int64
	if st, serr := os.Stat(path); serr == nil && st.IsDir() && list != nil {
		var paths []string
		if paths, err = list(path); err == nil {
			sum, n, err = HashFiles(path, paths)
			files = len(paths)
		}
	} else {
		sum, files, n, err = HashPath(path)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("inspect %s: hash %s: %w", name, path, err)
	}
	s.SHA256, s.Files, s.Bytes = sum, files, n
	s.Release, s.Warning = matchRelease(name, filepath.Base(filepath.Clean(path)), sum)
	return s, nil
}

func matchRelease(name, base, sum string) (*Release, string) {
	rels := Releases(name)
	for _, r := range rels {
		if r.SHA256 == sum {
			return &r, ""
		}
	}
	for _, r := range rels {
		if r.File == base {
			return nil, fmt.Sprintf("sha256 differs from the known official release of %s (%s from %s): results may not be comparable", r.File, r.SHA256, r.Source)
		}
	}
	return nil, fmt.Sprintf("no known hash recorded for %s", base)
}

// Summarize counts episodes, sessions, interactions, turns and questions
// per category.
func Summarize(name string, eps []Episode) Summary {
	sm := newSummarizer(name)
	for i := range eps {
		sm.add(&eps[i])
	}
	return sm.summary()
}

// summarizer accumulates a Summary one episode at a time.
type summarizer struct {
	s    Summary
	cats map[string]*CategoryCount
}

func newSummarizer(name string) *summarizer {
	return &summarizer{s: Summary{Benchmark: name}, cats: map[string]*CategoryCount{}}
}

func (sm *summarizer) add(ep *Episode) {
	s, cats := &sm.s, sm.cats
	s.Episodes++
	sessions := map[string]bool{}
	for _, st := range ep.Steps {
		if in := st.Interaction; in != nil {
			s.Interactions++
			s.Turns += len(in.Turns)
			if in.Session != "" {
				sessions[in.Session] = true
			}
		}
		q := st.Question
		if q == nil {
			continue
		}
		s.Questions++
		if q.Abstention {
			s.Abstentions++
		}
		if len(q.Evidence) > 0 {
			s.WithEvidence++
		}
		c := cats[q.Category]
		if c == nil {
			c = &CategoryCount{Category: q.Category, Name: q.Labels["category_name"]}
			cats[q.Category] = c
		}
		c.Questions++
	}
	s.Sessions += len(sessions)
}

func (sm *summarizer) summary() Summary {
	s := sm.s
	s.Categories = nil
	for _, c := range sm.cats {
		s.Categories = append(s.Categories, *c)
	}
	sort.Slice(s.Categories, func(i, j int) bool { return s.Categories[i].Category < s.Categories[j].Category })
	return s
}

// Render writes the summary as aligned text.
func (s Summary) Render(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kind := "file"
	if s.Files != 1 {
		kind = fmt.Sprintf("%d files", s.Files)
	}
	fmt.Fprintf(tw, "benchmark\t%s\n", s.Benchmark)
	fmt.Fprintf(tw, "data\t%s\n", s.Path)
	if s.SHA256 != "" {
		fmt.Fprintf(tw, "sha256\t%s (%s, %d bytes)\n", s.SHA256, kind, s.Bytes)
	}
	if s.Release != nil {
		fmt.Fprintf(tw, "release\tmatches %s from %s\n", s.Release.File, s.Release.Source)
	}
	if s.Selection != "" {
		fmt.Fprintf(tw, "selected\t%s (the hash covers the whole file)\n", s.Selection)
	}
	fmt.Fprintf(tw, "episodes\t%d\n", s.Episodes)
	fmt.Fprintf(tw, "sessions\t%d\n", s.Sessions)
	fmt.Fprintf(tw, "interactions\t%d\n", s.Interactions)
	fmt.Fprintf(tw, "turns\t%d\n", s.Turns)
	fmt.Fprintf(tw, "questions\t%d (abstention %d, with evidence %d)\n", s.Questions, s.Abstentions, s.WithEvidence)
	fmt.Fprintf(tw, "by category\t\n")
	for _, c := range s.Categories {
		label := c.Category
		if c.Name != "" {
			label += " " + c.Name
		}
		fmt.Fprintf(tw, "  %s\t%d\n", label, c.Questions)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Warning != "" {
		_, err := fmt.Fprintf(w, "warning: %s\n", s.Warning)
		return err
	}
	return nil
}

// HashPath returns the sha256 of a file, or for a directory the sha256 of
// the sorted "relative-path<TAB>sha256" lines of every .json file under it
// (the benchmark files; BEAM's pickles and text plans are skipped), with the
// number of files and bytes hashed.
func HashPath(path string) (sum string, files int, bytes int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, 0, err
	}
	if !st.IsDir() {
		sum, n, err := hashFile(path)
		return sum, 1, n, err
	}
	var paths []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", 0, 0, err
	}
	sum, bytes, err = HashFiles(path, paths)
	return sum, len(paths), bytes, err
}

// HashFiles is the tree hash of files under root: the sha256 of the sorted
// "path-relative-to-root<TAB>sha256" lines, with the bytes hashed.
func HashFiles(root string, files []string) (string, int64, error) {
	var lines []string
	var bytes int64
	for _, p := range files {
		h, n, err := hashFile(p)
		if err != nil {
			return "", 0, err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			rel = p
		}
		lines = append(lines, filepath.ToSlash(rel)+"\t"+h+"\n")
		bytes += n
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
	}
	return hex.EncodeToString(h.Sum(nil)), bytes, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
