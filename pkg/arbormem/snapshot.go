package arbormem

// Snapshots: a System saved to and loaded from a folder (FORMAT.md). Not in
// the paper, whose memory lives in one process.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Snapshot file names and format identifiers (see FORMAT.md).
const (
	snapshotState   = "state.json"
	snapshotVectors = "vectors.f32"
	snapshotFormat  = "arbormem-snapshot"
	snapshotVersion = 2
	vectorsMagic    = "ARBV"
)

// snapshot is the JSON part of a saved memory state.
type snapshot struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	Dim     int         `json:"dim"`
	Forest  *Forest     `json:"forest"`
	Store   *Store      `json:"store"`
	Records [][2]string `json:"records"`
}

var kindNames = map[recordKind]string{kindArtifact: "artifact", kindEvent: "event", kindState: "state"}

// Save writes the committed memory state to directory path (created if
// needed): state.json and vectors.f32, as documented in FORMAT.md.
func (s *System) Save(ctx context.Context, path string) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("arbormem: save: %w", err)
	}
	snap := snapshot{Format: snapshotFormat, Version: snapshotVersion, Dim: s.deps.Embed.Dim(), Forest: s.forest, Store: s.store}
	for _, r := range s.store.records {
		snap.Records = append(snap.Records, [2]string{kindNames[r.kind], fmt.Sprint(r.idx)})
	}
	b, err := json.MarshalIndent(snap, "", " ")
	if err != nil {
		return fmt.Errorf("arbormem: save: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(path, snapshotState), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("arbormem: save: %w", err)
	}
	err = writeFileAtomic(filepath.Join(path, snapshotVectors), func(w io.Writer) error {
		// Vectors live only in their indexes: node and fact vectors of unit
		// length (Load puts them back unchanged with AddUnit), record
		// vectors as Raw gives them: as given where the index keeps them
		// so (the offline profile), else the unit row, dequantised for
		// quantised storage (Load puts them back with Restore).
		nv := make([][]float32, len(s.forest.Nodes))
		for i, n := range s.forest.Nodes {
			nv[i] = s.nodeVec.Vector(n.Seq)
		}
		fv := make([][]float32, len(s.store.Facts))
		for i, f := range s.store.Facts {
			fv[i] = s.factVec.Vector(f.ID)
		}
		rv := make([][]float32, len(s.store.records))
		for i := range rv {
			rv[i] = s.recVec.Raw(i)
		}
		return writeVectors(w, snap.Dim, nv, fv, rv)
	})
	if err != nil {
		return fmt.Errorf("arbormem: save: %w", err)
	}
	return nil
}

func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// writeVectors writes the binary vector file: header, then one record per
// node, per fact and per structured record (presence byte + dim
// little-endian float32).
func writeVectors(w io.Writer, dim int, nodes, facts, records [][]float32) error {
	hdr := make([]byte, 0, 24)
	hdr = append(hdr, vectorsMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, snapshotVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(dim))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(nodes)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(facts)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(records)))
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, 1+4*dim)
	put := func(v []float32) error {
		buf[0] = 0
		if len(v) == dim {
			buf[0] = 1
			for i, x := range v {
				binary.LittleEndian.PutUint32(buf[1+4*i:], math.Float32bits(x))
			}
			_, err := w.Write(buf)
			return err
		}
		_, err := w.Write(buf[:1])
		return err
	}
	for _, v := range nodes {
		if err := put(v); err != nil {
			return err
		}
	}
	for _, v := range facts {
		if err := put(v); err != nil {
			return err
		}
	}
	for _, v := range records {
		if err := put(v); err != nil {
			return err
		}
	}
	return nil
}

func readVectors(r io.Reader, dim, nodes, facts, records int) ([][]float32, [][]float32, [][]float32, error) {
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, nil, nil, fmt.Errorf("header: %w", err)
	}
	if string(hdr[:4]) != vectorsMagic {
		return nil, nil, nil, fmt.Errorf("header: magic %q, want %q", hdr[:4], vectorsMagic)
	}
	if v := binary.LittleEndian.Uint32(hdr[4:]); v != snapshotVersion {
		return nil, nil, nil, fmt.Errorf("header: version %d, want %d", v, snapshotVersion)
	}
	if d := int(binary.LittleEndian.Uint32(hdr[8:])); d != dim {
		return nil, nil, nil, fmt.Errorf("header: dimension %d, state.json says %d", d, dim)
	}
	if n := int(binary.LittleEndian.Uint32(hdr[12:])); n != nodes {
		return nil, nil, nil, fmt.Errorf("header: %d node vectors, state.json has %d nodes", n, nodes)
	}
	if n := int(binary.LittleEndian.Uint32(hdr[16:])); n != facts {
		return nil, nil, nil, fmt.Errorf("header: %d fact vectors, state.json has %d facts", n, facts)
	}
	if n := int(binary.LittleEndian.Uint32(hdr[20:])); n != records {
		return nil, nil, nil, fmt.Errorf("header: %d record vectors, state.json has %d records", n, records)
	}
	buf := make([]byte, 4*dim)
	get := func(what string, i int) ([]float32, error) {
		var flag [1]byte
		if _, err := io.ReadFull(r, flag[:]); err != nil {
			return nil, fmt.Errorf("%s %d: %w", what, i, err)
		}
		switch flag[0] {
		case 0:
			return nil, nil
		case 1:
		default:
			return nil, fmt.Errorf("%s %d: presence byte %d, want 0 or 1", what, i, flag[0])
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("%s %d: %w", what, i, err)
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
			if math.IsNaN(float64(v[j])) || math.IsInf(float64(v[j]), 0) {
				return nil, fmt.Errorf("%s %d: component %d is not finite", what, i, j)
			}
		}
		return v, nil
	}
	nv := make([][]float32, nodes)
	fv := make([][]float32, facts)
	var err error
	for i := range nv {
		if nv[i], err = get("node vector", i); err != nil {
			return nil, nil, nil, err
		}
	}
	for i := range fv {
		if fv[i], err = get("fact vector", i); err != nil {
			return nil, nil, nil, err
		}
	}
	rv := make([][]float32, records)
	for i := range rv {
		if rv[i], err = get("record vector", i); err != nil {
			return nil, nil, nil, err
		}
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n > 0 {
		return nil, nil, nil, errors.New("trailing bytes after the last vector")
	}
	return nv, fv, rv, nil
}

// Load replaces the memory state with the one saved in directory path. On
// error the current state is left unchanged.
func (s *System) Load(ctx context.Context, path string) error {
	stateFile := filepath.Join(path, snapshotState)
	b, err := os.ReadFile(stateFile)
	if err != nil {
		return fmt.Errorf("arbormem: load: %w", err)
	}
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return fmt.Errorf("arbormem: load %s: %w", stateFile, err)
	}
	if err := checkSnapshot(&snap, s.deps.Embed.Dim()); err != nil {
		return fmt.Errorf("arbormem: load %s: %w", stateFile, err)
	}
	vecFile := filepath.Join(path, snapshotVectors)
	vf, err := os.Open(vecFile)
	if err != nil {
		return fmt.Errorf("arbormem: load: %w", err)
	}
	defer vf.Close()
	nv, fv, rv, err := readVectors(bufio.NewReader(vf), snap.Dim, len(snap.Forest.Nodes), len(snap.Store.Facts), len(snap.Records))
	if err != nil {
		return fmt.Errorf("arbormem: load %s: %w", vecFile, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset()
	f := snap.Forest
	f.rebuild()
	s.forest = f
	for i, n := range f.Nodes {
		s.prepareNode(ctx, n, turnLines(n.Interaction))
		s.indexNode(n)
		if len(nv[i]) == s.deps.Embed.Dim() {
			s.nodeVec.AddUnit(n.Seq, nv[i])
		}
	}
	st := snap.Store
	st.stateByKey = map[string][]int{}
	st.factTerms = map[string][]int32{}
	st.factByTerm = map[string][]int32{}
	s.store = st
	for i, fa := range st.Facts {
		s.prepareFact(ctx, fa, factTerms(fa.Text, fa.Entities))
		s.indexFact(fa)
		if len(fv[i]) == s.deps.Embed.Dim() {
			s.factVec.AddUnit(fa.ID, fv[i])
		}
	}
	for i, x := range st.States {
		if x.Next < 0 {
			st.stateByKey[x.Key] = append(st.stateByKey[x.Key], i)
		}
	}
	for i, r := range snap.Records {
		ref, _ := parseRecordRef(r)
		s.indexRecord(ref, nil)
		if len(rv[i]) == s.deps.Embed.Dim() {
			s.recVec.Restore(i, rv[i]) // record i is id i, as indexRecord numbers them
		}
	}
	return nil
}

func parseRecordRef(r [2]string) (recordRef, error) {
	var idx int
	if _, err := fmt.Sscan(r[1], &idx); err != nil {
		return recordRef{}, fmt.Errorf("index %q is not a number", r[1])
	}
	for k, name := range kindNames {
		if name == r[0] {
			return recordRef{k, idx}, nil
		}
	}
	return recordRef{}, fmt.Errorf("kind %q: want artifact, event or state", r[0])
}

// checkSnapshot validates a decoded state.json so that Load never builds an
// inconsistent forest; errors name the element and field.
func checkSnapshot(snap *snapshot, dim int) error {
	if snap.Format != snapshotFormat {
		return fmt.Errorf("format %q, want %q", snap.Format, snapshotFormat)
	}
	if snap.Version != snapshotVersion {
		return fmt.Errorf("version %d, want %d", snap.Version, snapshotVersion)
	}
	if snap.Dim != dim {
		return fmt.Errorf("dim %d, but the configured embedder has dimension %d", snap.Dim, dim)
	}
	if snap.Forest == nil || snap.Store == nil {
		return errors.New("missing forest or store")
	}
	f := snap.Forest
	ids := map[string]bool{}
	roots := 0
	for i, n := range f.Nodes {
		if n == nil {
			return fmt.Errorf("forest.nodes[%d]: null", i)
		}
		switch {
		case n.Seq != i:
			return fmt.Errorf("forest.nodes[%d].seq: %d, want %d", i, n.Seq, i)
		case n.Interaction.ID == "" || ids[n.Interaction.ID]:
			return fmt.Errorf("forest.nodes[%d].interaction.id: %q is empty or repeated", i, n.Interaction.ID)
		case n.Parent < -1 || n.Parent >= i:
			return fmt.Errorf("forest.nodes[%d].parent: %d, want -1 or an earlier node", i, n.Parent)
		}
		ids[n.Interaction.ID] = true
		if n.Parent < 0 {
			roots++
			if n.Root != i || n.Depth != 0 {
				return fmt.Errorf("forest.nodes[%d]: a root must have root %d and depth 0 (has %d, %d)", i, i, n.Root, n.Depth)
			}
		} else {
			p := f.Nodes[n.Parent]
			if n.Root != p.Root || n.Depth != p.Depth+1 {
				return fmt.Errorf("forest.nodes[%d]: root/depth %d/%d disagree with parent %d (%d/%d)", i, n.Root, n.Depth, n.Parent, p.Root, p.Depth+1)
			}
		}
		for j, c := range n.Children {
			if c <= i || c >= len(f.Nodes) || f.Nodes[c] == nil || f.Nodes[c].Parent != i {
				return fmt.Errorf("forest.nodes[%d].children[%d]: %d is not a child of %d", i, j, c, i)
			}
		}
	}
	if roots != len(f.Roots) {
		return fmt.Errorf("forest.roots: %d listed, %d nodes have no parent", len(f.Roots), roots)
	}
	for i, r := range f.Roots {
		if r < 0 || r >= len(f.Nodes) || f.Nodes[r].Parent != -1 {
			return fmt.Errorf("forest.roots[%d]: %d is not a root", i, r)
		}
	}
	if f.Active < -1 || f.Active >= len(f.Nodes) || (f.Active == -1) != (len(f.Nodes) == 0) {
		return fmt.Errorf("forest.active: %d out of range", f.Active)
	}
	st := snap.Store
	for i, fa := range st.Facts {
		switch {
		case fa == nil:
			return fmt.Errorf("store.facts[%d]: null", i)
		case fa.ID != i:
			return fmt.Errorf("store.facts[%d].id: %d, want %d", i, fa.ID, i)
		case fa.Node < 0 || fa.Node >= len(f.Nodes):
			return fmt.Errorf("store.facts[%d].node: %d out of range", i, fa.Node)
		case fa.SupersededBy < -1 || fa.SupersededBy >= len(st.Facts) || fa.SupersededBy == i:
			return fmt.Errorf("store.facts[%d].superseded_by: %d out of range", i, fa.SupersededBy)
		}
		for j, o := range fa.Supersedes {
			if o < 0 || o >= len(st.Facts) || o == i {
				return fmt.Errorf("store.facts[%d].supersedes[%d]: %d out of range", i, j, o)
			}
		}
	}
	for i, a := range st.Artifacts {
		if a == nil || a.Node < 0 || a.Node >= len(f.Nodes) {
			return fmt.Errorf("store.artifacts[%d]: null or node out of range", i)
		}
	}
	for i, e := range st.Events {
		if e == nil || e.Node < 0 || e.Node >= len(f.Nodes) {
			return fmt.Errorf("store.events[%d]: null or node out of range", i)
		}
	}
	for i, x := range st.States {
		switch {
		case x == nil || x.Node < 0 || x.Node >= len(f.Nodes):
			return fmt.Errorf("store.states[%d]: null or node out of range", i)
		case x.Prev < -1 || x.Prev >= i:
			return fmt.Errorf("store.states[%d].prev: %d, want -1 or an earlier state", i, x.Prev)
		case x.Next != -1 && (x.Next <= i || x.Next >= len(st.States)):
			return fmt.Errorf("store.states[%d].next: %d, want -1 or a later state", i, x.Next)
		}
	}
	seen := map[recordRef]bool{}
	for i, r := range snap.Records {
		ref, err := parseRecordRef(r)
		if err != nil {
			return fmt.Errorf("records[%d]: %w", i, err)
		}
		n := map[recordKind]int{kindArtifact: len(st.Artifacts), kindEvent: len(st.Events), kindState: len(st.States)}[ref.kind]
		if ref.idx < 0 || ref.idx >= n || seen[ref] {
			return fmt.Errorf("records[%d]: %s %d out of range or repeated", i, r[0], ref.idx)
		}
		seen[ref] = true
	}
	if len(seen) != len(st.Artifacts)+len(st.Events)+len(st.States) {
		return fmt.Errorf("records: %d listed, store holds %d", len(seen), len(st.Artifacts)+len(st.Events)+len(st.States))
	}
	return nil
}
