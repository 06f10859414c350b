package sidecar

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a tiny sidecar: run with ARBOR_FAKE_SIDECAR set
// to a mode it speaks the protocol on stdin/stdout instead of running tests.
// Its memory keeps every interaction and recalls those sharing words with the
// query, best first, so that the conformance suite has something real to
// check; the modes switch in the failures arbor must survive.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("ARBOR_FAKE_SIDECAR"); ok {
		os.Exit(fakeSidecar(mode))
	}
	os.Exit(m.Run())
}

type fakeUnit struct {
	id, text, time string
}

func fakeSidecar(mode string) int {
	if mode == "missing" {
		fmt.Fprintln(os.Stderr, "fake sidecar: the library fakemem is not installed; pip install fakemem")
		return 3
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	var units []fakeUnit
	commits := 0
	for in.Scan() {
		var req map[string]any
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "fake sidecar: bad request:", err)
			return 2
		}
		op, _ := req["op"].(string)
		rep := map[string]any{"id": req["id"], "ok": true}
		switch op {
		case "hello":
			rep["protocol"], rep["system"], rep["library"], rep["library_version"], rep["written_against"] = Version, req["system"], "fakemem", "0.1", "0.1"
			if mode == "oldproto" {
				rep["protocol"] = 0
			}
		case "reset":
			units, commits = nil, 0
		case "commit":
			commits++
			if mode == "crash" && commits == 2 {
				fmt.Fprintln(os.Stderr, "fake sidecar: segmentation fault in fakemem")
				return 139
			}
			if mode == "garbage" && commits == 2 {
				fmt.Println("Traceback (most recent call last): not json")
				continue
			}
			if mode == "hang" && commits == 2 {
				time.Sleep(time.Hour)
			}
			if mode == "refuse" && commits == 2 {
				rep["ok"], rep["error"] = false, "fakemem: rate limited"
				break
			}
			it := req["interaction"].(map[string]any)
			var parts []string
			for _, t := range it["turns"].([]any) {
				parts = append(parts, t.(map[string]any)["content"].(string))
			}
			tm, _ := it["time"].(string)
			units = append(units, fakeUnit{id: it["id"].(string), text: strings.Join(parts, " "), time: tm})
			rep["usage"] = map[string]any{"chat": map[string]int{"calls": 1, "prompt_tokens": 100, "completion_tokens": 10}, "embed": map[string]int{"calls": 1, "prompt_tokens": 20}}
			if mode == "modelerrors" {
				rep["usage"] = map[string]any{"chat": map[string]int{"calls": 2, "errors": 1}}
			}
		case "flush":
			n := commits
			if mode == "lose" {
				n--
			}
			rep["interactions"], rep["units"], rep["pending"], rep["failed"] = n, len(units), 0, 0
		case "recall":
			rep["items"] = fakeRecall(units, req["query"].(string), int(req["k"].(float64)), mode)
			rep["usage"] = map[string]any{"embed": map[string]int{"calls": 1, "prompt_tokens": 5}}
		default:
			rep["ok"], rep["error"] = false, "unknown op "+op
		}
		if err := out.Encode(rep); err != nil {
			return 1
		}
	}
	return 0
}

func fakeRecall(units []fakeUnit, query string, k int, mode string) []map[string]any {
	q := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		q[strings.Trim(w, "?.,!")] = true
	}
	type hit struct {
		u     fakeUnit
		score int
	}
	var hits []hit
	for _, u := range units {
		s := 0
		for _, w := range strings.Fields(strings.ToLower(u.text)) {
			if q[strings.Trim(w, "?.,!")] {
				s++
			}
		}
		if s > 0 || mode == "thirty" {
			hits = append(hits, hit{u, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var items []map[string]any
	for i := 0; len(items) < k; i++ {
		if mode == "thirty" {
			if len(items) == 30 || len(hits) == 0 {
				break
			}
			h := hits[i%len(hits)]
			items = append(items, map[string]any{"text": fmt.Sprintf("unit %d: %s", i, h.u.text), "score": 1, "time": h.u.time, "sources": []string{h.u.id}})
			continue
		}
		if i >= len(hits) {
			break
		}
		h := hits[i]
		items = append(items, map[string]any{"text": h.u.text, "score": h.score, "time": h.u.time, "sources": []string{h.u.id}})
	}
	return items
}
