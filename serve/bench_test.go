package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkServe measures what arbor serve adds to a turn on loopback,
// offline (no model time): a scope of ARBOR_SERVE_TURNS committed turns
// (1,000 by default), then recall requests and chat turns against it, with
// p50 and p99 per request reported beside ns/op.
//
//	go test ./serve -run '^$' -bench Serve -benchtime 200x
func BenchmarkServe(b *testing.B) {
	turns := 1000
	if v := os.Getenv("ARBOR_SERVE_TURNS"); v != "" {
		turns, _ = strconv.Atoi(v)
	}
	s, hs := newServer(b, testConfig(b, ""), b.TempDir())
	sc, err := s.scopes.acquire(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	topics := []string{"the Lisbon trip", "my sister's wedding", "the kitchen renovation", "my thesis revision", "the car repair"}
	for i := range turns {
		in := s.interaction(sc, "", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute),
			fmt.Sprintf("About %s: note %d says the code is %05d and the budget is $%d.", topics[i%len(topics)], i, i, 100+i), "Noted.")
		if err := s.commit(context.Background(), sc, in); err != nil {
			b.Fatal(err)
		}
	}
	s.scopes.release(sc)
	for _, c := range []struct {
		name string
		do   func(i int) (*http.Response, error)
	}{
		{"recall", func(i int) (*http.Response, error) {
			return http.Get(hs.URL + "/v1/memory/bench/recall?q=" + url.QueryEscape(fmt.Sprintf("What is the budget for %s?", topics[i%len(topics)])))
		}},
		{"chat", func(i int) (*http.Response, error) {
			req, _ := http.NewRequest("POST", hs.URL+"/v1/chat/completions",
				stringsReader(fmt.Sprintf(`{"messages": [{"role": "user", "content": "What was note %d about %s?"}]}`, i, topics[i%len(topics)])))
			req.Header.Set(ScopeHeader, "bench")
			return http.DefaultClient.Do(req)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				resp, err := c.do(i)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			}
		})
	}
}
