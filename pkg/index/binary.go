package index

import "sync"

// binaryStage is the sign-bit first stage of an Exact index (Options.Search
// Binary, arbormem.vector_search: binary). Each dense row keeps the signs
// of its unit row (128 bytes at 1,024-d); a search counts the bits in
// which every row's signs differ from the query's (XOR and
// math/bits.OnesCount64, 16 words a row), keeps the Rerank·k rows with the
// fewest, and scores those as exact search scores them. Rows are compared
// by angle: the share of differing sign bits estimates the angle over π
// (random hyperplanes, Charikar 2002), so near rows differ in few bits. A
// row found scores exactly as exact search scores it; what the stage loses
// is a true top-k row whose signs differ more than Rerank·k others'
// (recall@k below 1, measured against exact search in TestBinaryRecall).
// The scan reads an eighth of an int8 row and a thirty-second of a
// float32 one per row, with no conversion of codes, so its cost grows
// with n at a small slope while the exact scoring of the short list does
// not grow at all.
type binaryStage struct {
	rerank int
	// scratch holds a search's working slices (*binaryScratch), reused
	// across searches: both grow with the index or its dimension.
	scratch sync.Pool
}

// binaryScratch is one search's working memory: the per-row distances and
// the histogram of them.
type binaryScratch struct {
	dists []uint16
	hist  []int32
}

// noDist marks a sparse row in binarySearch's distances: it has no sign
// bits and is always scored.
const noDist = ^uint16(0)

// binarySearch is Search through the sign bits (x.mu read-locked; q the
// unit query, scratch zero).
func (x *Exact) binarySearch(q, scratch []float32, k int) []Hit {
	n := len(x.rows)
	want := x.bin.rerank * k
	var qsBuf [16]uint64
	var qs []uint64
	if w := words(x.dim); w <= len(qsBuf) {
		qs = qsBuf[:w]
	} else {
		qs = make([]uint64, w)
	}
	signBits(q, qs)
	sc, _ := x.bin.scratch.Get().(*binaryScratch)
	if sc == nil {
		sc = new(binaryScratch)
	}
	defer x.bin.scratch.Put(sc)
	if cap(sc.dists) < n {
		sc.dists = make([]uint16, n)
	}
	dist := sc.dists[:n]
	// A histogram of the distances finds the cut: the smallest distance
	// below which fewer than want rows lie, so the short list is found in
	// two passes without sorting. A pooled one holds the last search's
	// counts, so it is cleared.
	if cap(sc.hist) < x.dim+1 {
		sc.hist = make([]int32, x.dim+1)
	}
	hist := sc.hist[:x.dim+1]
	clear(hist)
	if len(qs) == 16 {
		// 1,024-d rows (the models' and the offline default's
		// dimension): the sixteen words of a row are read through an
		// array pointer and counted unrolled, with no bounds check or
		// loop per word, which halves the scan.
		q16 := (*[16]uint64)(qs)
		for i := range x.rows {
			if x.rows[i] <= 0 {
				dist[i] = noDist
				continue
			}
			s := uint32(x.rows[i] - 1) // unsigned: the chunk and offset are a shift and a mask
			off := s % chunkRows * 16
			d := hamming16(q16, (*[16]uint64)(x.dense.signs[s/chunkRows][off:off+16]))
			dist[i] = uint16(d)
			hist[d]++
		}
	} else {
		for i := range x.rows {
			s, ok := x.rows[i].slot()
			if !ok {
				dist[i] = noDist
				continue
			}
			d := hamming(qs, x.dense.signRow(s))
			dist[i] = uint16(d)
			hist[d]++
		}
	}
	cut, below := 0, 0
	for cut < len(hist) && below+int(hist[cut]) <= want {
		below += int(hist[cut])
		cut++
	}
	// Rows at the cut distance fill what is left of the list in row order.
	atCut := want - below
	top := newTopK(min(k, n))
	for i, d := range dist {
		switch {
		case d == noDist || int(d) < cut:
		case int(d) == cut && atCut > 0:
			atCut--
		default:
			continue
		}
		top.push(x.idOf(i), x.rowScore(q, scratch, i))
	}
	return top.sorted()
}
