package longmemeval_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
)

// writeMShaped writes a LongMemEval _m-shaped file of about gb gigabytes in
// dir: instances of ~500 haystack sessions of 10 turns each, like _m's,
// and returns its path and size. Nothing is committed: it lives in a
// temporary directory.
func writeMShaped(b *testing.B, dir string, gb float64) (string, int64) {
	path := filepath.Join(dir, "longmemeval_m_shaped.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	turn := strings.Repeat("a fairly long chat message about planning the week, the garden and a trip; ", 6)
	target := int64(gb * (1 << 30))
	var written int64
	write := func(s string) {
		n, _ := w.WriteString(s)
		written += int64(n)
	}
	write("[")
	for i := 0; written < target; i++ {
		if i > 0 {
			write(",")
		}
		write(fmt.Sprintf(`{"question_id":"m%d","question_type":"multi-session","question":"What did I plan for the garden?","answer":"tomatoes","question_date":"2023/05/30 (Tue) 23:40","haystack_session_ids":[`, i))
		const sessions = 500
		for s := range sessions {
			if s > 0 {
				write(",")
			}
			write(strconv.Quote(fmt.Sprintf("s%d_%d", i, s)))
		}
		write(`],"haystack_dates":[`)
		for s := range sessions {
			if s > 0 {
				write(",")
			}
			write(`"2023/05/20 (Sat) 02:21"`)
		}
		write(`],"haystack_sessions":[`)
		for s := range sessions {
			if s > 0 {
				write(",")
			}
			write("[")
			for k := range 10 {
				if k > 0 {
					write(",")
				}
				role := "user"
				if k%2 == 1 {
					role = "assistant"
				}
				write(fmt.Sprintf(`{"role":%q,"content":%q}`, role, turn))
			}
			write("]")
		}
		write(`],"answer_session_ids":["s` + strconv.Itoa(i) + `_1"]}`)
	}
	write("]")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path, written
}

// peakRSS is the process's peak resident set size in bytes (VmHWM).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// BenchmarkStreamMShaped decodes a generated LongMemEval _m-shaped file of
// ARBOR_STREAM_GB gigabytes (default 2) episode by episode, as the runner's
// index and replay passes do, and reports the peak resident memory of the
// process (which must stay far below the file's size) and the throughput.
//
//	go test ./datasets/longmemeval -run '^$' -bench StreamMShaped -benchtime 1x -timeout 30m
func BenchmarkStreamMShaped(b *testing.B) {
	gb := 2.0
	if v := os.Getenv("ARBOR_STREAM_GB"); v != "" {
		var err error
		if gb, err = strconv.ParseFloat(v, 64); err != nil || gb <= 0 {
			b.Fatalf("ARBOR_STREAM_GB=%q: want a positive number", v)
		}
	}
	path, size := writeMShaped(b, b.TempDir(), gb)
	b.ResetTimer()
	episodes, turns := 0, 0
	err := datasets.Each(context.Background(), "longmemeval", path, datasets.Options{}, func(e datasets.Episode) error {
		episodes++
		turns += len(e.Steps)
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if !datasets.Streams("longmemeval") {
		b.Fatal("longmemeval is not decoded as a stream")
	}
	b.ReportMetric(float64(size)/(1<<30), "GB-file")
	b.ReportMetric(float64(peakRSS())/(1<<20), "MB-peak-RSS")
	b.ReportMetric(float64(episodes), "episodes")
	b.ReportMetric(float64(size)/(1<<20)/b.Elapsed().Seconds(), "MB/s")
	_ = turns
}
