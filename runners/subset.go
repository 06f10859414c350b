package runners

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The paper's fixed LongMemEval subset of the supplementary analyses (§6.4):
// "12,394 turns (247.88 per case)". It cannot be recovered, so arbor shows
// its own subset's figures beside these.
const (
	PaperSubsetTurns        = 12394
	PaperSubsetTurnsPerCase = 247.88
)

// SubsetFile is the file a run writes its subset's question ids to; it is
// a valid --subset-ids file.
const SubsetFile = "subset.txt"

// ParseSubsetIDs reads a --subset-ids file: one episode or question id per
// line; blank lines and lines starting with "#" are skipped, surrounding
// space is trimmed. name is used in errors.
func ParseSubsetIDs(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var ids []string
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		id := strings.TrimSpace(sc.Text())
		if id == "" || strings.HasPrefix(id, "#") {
			continue
		}
		if first, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: line %d: id %q is already listed on line %d", name, line, id, first)
		}
		seen[id] = line
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no ids (one episode or question id per line)", name)
	}
	return ids, nil
}

// ReadSubsetIDs reads the --subset-ids file at path (ParseSubsetIDs).
func ReadSubsetIDs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--subset-ids: %w", err)
	}
	defer f.Close()
	return ParseSubsetIDs(f, path)
}

// pinSubset keeps the episodes whose id, or one of whose question ids, is in
// ids, in file order; an id that matches nothing is an error.
func pinSubset(hs []header, ids []string, bench string) ([]header, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	found := map[string]bool{}
	var keep []header
	for _, h := range hs {
		hit := want[h.id]
		if hit {
			found[h.id] = true
		}
		for _, q := range h.questions {
			if want[q] {
				hit, found[q] = true, true
			}
		}
		if hit {
			keep = append(keep, h)
		}
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("--subset-ids: %d ids are not episodes or questions of %s: %s", len(missing), bench, strings.Join(clipList(missing, 5), ", "))
	}
	return keep, nil
}

func clipList(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(xs[:n:n], fmt.Sprintf("… (%d more)", len(xs)-n))
}

// subsetStats are a subset's size in questions and turns (interactions to
// commit, one user–assistant interaction each).
type subsetStats struct {
	Episodes, Questions, Turns int
}

func statsOf(hs []header) subsetStats {
	var s subsetStats
	for _, h := range hs {
		s.Episodes++
		s.Questions += len(h.questions)
		s.Turns += h.interactions
	}
	return s
}

// perCase is the mean number of turns per episode.
func (s subsetStats) perCase() float64 {
	if s.Episodes == 0 {
		return 0
	}
	return float64(s.Turns) / float64(s.Episodes)
}

// summary is the one-line description printed and written with the subset;
// on LongMemEval the paper's figures stand beside arbor's.
func (s subsetStats) summary(bench string) string {
	line := fmt.Sprintf("subset: %d episodes, %d questions, %s turns (%.2f per case)", s.Episodes, s.Questions, thousands(s.Turns), s.perCase())
	if bench == "longmemeval" {
		line += fmt.Sprintf("; the paper's subset: %s turns (%.2f per case)", thousands(PaperSubsetTurns), PaperSubsetTurnsPerCase)
	}
	return line
}

// writeSubset writes the subset's question ids to dir/subset.txt, with its
// figures as comment lines, so that the file can be passed to --subset-ids,
// and prints the figures to log.
func writeSubset(dir, bench string, hs []header, log io.Writer) error {
	st := statsOf(hs)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n# one question id per line; pass this file to --subset-ids to run the same subset\n", st.summary(bench))
	for _, h := range hs {
		for _, q := range h.questions {
			fmt.Fprintln(&b, q)
		}
	}
	path := filepath.Join(dir, SubsetFile)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(log, "%s (question ids in %s)\n", st.summary(bench), path)
	return nil
}

// thousands formats n with comma separators (12,394).
func thousands(n int) string { return english.Sprintf("%d", n) }

var english = message.NewPrinter(language.English)
