package sidecar

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/internal/realdeps"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

// The real sidecars under scripts/bridges, run against arbor's fake model
// server: the Node Mem0 sidecar on the real npm mem0ai, the Python ones on
// the stand-in libraries in testdata/python (the real ones cannot be
// installed here; see each sidecar's header for its install line).

const bridgesDir = "../../scripts/bridges"

// bridgeConformance keeps the suite's cost down for real processes: arbor
// packs every bridge's bundle itself (System.Recall), so budgets below one
// unit, a middling one and an unlimited one cover the packing cases.
var bridgeConformance = []memorytest.Option{memorytest.WithCounter(words{}), memorytest.WithInstances(2), memorytest.WithBudgets(7, 256, 1<<20)}

// fakeModels starts the fake OpenAI-compatible server and returns a config
// whose chat and embed roles point at it.
func fakeModels(t *testing.T) (*openaifake.Server, *config.Config) {
	t.Helper()
	srv := openaifake.New(openaifake.Options{Dim: 1024})
	t.Cleanup(srv.Close)
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ep := []config.Endpoint{{URL: srv.URL, Model: "fake-model"}}
	cfg.Models.Chat = config.Role{Provider: "openai", Endpoints: ep}
	cfg.Models.Embed = config.Role{Provider: "openai", Endpoints: ep}
	return srv, cfg
}

// bridgePool builds system's pool from the config as arbor does, with the
// command's script path made relative to this package.
func bridgePool(t *testing.T, cfg *config.Config, system, benchmark string, env ...string) *Pool {
	t.Helper()
	spec, err := SpecFor(cfg, system, benchmark)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range spec.Command {
		if strings.HasPrefix(a, "scripts/bridges/") {
			spec.Command[i] = filepath.Join(bridgesDir, strings.TrimPrefix(a, "scripts/bridges/"))
		}
	}
	spec.Env = append(spec.Env, env...)
	spec.Timeout, spec.StartTimeout = 60*time.Second, 60*time.Second
	p := NewPool(spec, words{})
	t.Cleanup(func() { p.Close() })
	return p
}

// mem0Ready skips the test, saying how to install, unless the Node sidecar
// can run: node on PATH and scripts/bridges/mem0/node_modules installed
// with its native SQLite binding built. Tests never install anything: an
// `npm ci` compiles better-sqlite3 for minutes, and a test cut short would
// leave a half-built tree behind.
func mem0Ready(t *testing.T) {
	t.Helper()
	if msg := Mem0NodeMissing(bridgesDir); msg != "" {
		realdeps.Missing(t, msg)
	}
}

func TestMem0Node(t *testing.T) {
	mem0Ready(t)
	srv, cfg := fakeModels(t)
	p := bridgePool(t, cfg, "mem0", "locomo")

	t.Run("Handshake", func(t *testing.T) {
		h, err := p.Check(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if h.Library != "mem0ai" || h.LibraryVersion != "3.3.1" || h.WrittenAgainst != "3.3.1" {
			t.Errorf("hello = %+v", h)
		}
	})

	t.Run("AddsAndFinds", func(t *testing.T) {
		ctx, usage := llm.WithUsage(t.Context())
		sys, err := p.Factory()(ctx, "ep-find")
		if err != nil {
			t.Fatal(err)
		}
		defer sys.(*System).Close()
		for _, in := range []dialog.Interaction{
			interaction("i1", "I booked the Hotel Avenida in Lisbon for June."),
			interaction("i2", "My car is a blue Corolla and the brakes cost 300 euros."),
			interaction("i3", "I booked the Hotel Avenida in Lisbon for June."), // the same fact again: Mem0 dedupes it
		} {
			if err := sys.Commit(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		f, err := sys.(*System).Flush(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Interactions != 3 || f.Units != 2 {
			t.Errorf("flush = %+v, want 3 interactions and 2 memories (the repeated fact deduplicated by Mem0)", f)
		}
		found := map[string]bool{}
		for _, q := range []string{"Which hotel did I book in Lisbon?", "What car do I drive?", "How much did the brakes cost?"} {
			b, err := sys.Recall(ctx, memory.Query{Text: q, Budget: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range b.Items {
				found[it.Text] = true
				if len(it.Sources) != 1 || (it.Sources[0] != "i1" && it.Sources[0] != "i2") {
					t.Errorf("item %q cites %v", it.Text, it.Sources)
				}
			}
		}
		if len(found) == 0 {
			t.Fatal("Mem0 found no memory for any of three questions")
		}
		for text := range found {
			if !strings.HasPrefix(text, "[2023-05-30 10:00] User said: [2023-05-30 10:00] ") {
				t.Errorf("memory %q lacks the session time (item stamp, and the time Mem0 extracted from the text)", text)
			}
		}
		u := usage.Snapshot()
		if u["chat"].Count != 3 || u["chat"].PromptTokens == 0 || u["embed"].Count == 0 {
			t.Errorf("usage = %+v, want Mem0's 3 extraction calls and its embedding calls", u)
		}
		if got := srv.PathStats("/v1/chat/completions").Requests; got < 3 {
			t.Errorf("the fake saw %d chat requests", got)
		}
	})

	t.Run("Conformance", func(t *testing.T) {
		longForm(t)
		memorytest.Run(t, p.Factory(), bridgeConformance...)
	})
}

// longForm skips the conformance suite on real sidecar processes unless
// ARBOR_BRIDGE_CONFORMANCE=1: it takes 20-40 s per system on two busy
// cores, too long for CI, which checks the protocol client's conformance on
// the in-process fake (TestConformance) and each real sidecar's basics.
func longForm(t *testing.T) {
	t.Helper()
	if os.Getenv("ARBOR_BRIDGE_CONFORMANCE") != "1" {
		t.Skip("set ARBOR_BRIDGE_CONFORMANCE=1 to run the conformance suite on the real sidecar processes")
	}
}

// standIns is the PYTHONPATH of the stand-in libraries.
func standIns(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		realdeps.Missing(t, "python3 not found: the Python sidecars need it")
	}
	abs, err := filepath.Abs("testdata/python")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// pythonBridge builds a Python sidecar's pool on the stand-ins.
func pythonBridge(t *testing.T, cfg *config.Config, system, benchmark string) *Pool {
	t.Helper()
	path := standIns(t)
	if system == "licomemory" {
		cfg.Bridges.LiCoMemory.Options = map[string]any{"repo": filepath.Join(path, "licomemory-repo"), "chunk_tokens": 30}
	}
	if system == "mem0" {
		cfg.Bridges.Mem0.Command = []string{"python3", "scripts/bridges/python/mem0py.py"}
	}
	return bridgePool(t, cfg, system, benchmark, "PYTHONPATH="+path)
}

// TestPythonBridges runs every Python sidecar through the conformance suite
// on its stand-in library, and checks its handshake and model accounting.
func TestPythonBridges(t *testing.T) {
	for _, c := range []struct{ system, library, version string }{
		{"amem", "agentic_memory", "0.0.1-standin"},
		{"graphiti", "graphiti-core", "0.29.0-standin"},
		{"licomemory", "LiCoMemory", "unknown (not a git checkout)"},
		{"mem0", "mem0ai", "2.0.0-standin"},
	} {
		t.Run(c.system, func(t *testing.T) {
			t.Parallel()
			srv, cfg := fakeModels(t)
			p := pythonBridge(t, cfg, c.system, "locomo")
			h, err := p.Check(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if h.Library != c.library || h.LibraryVersion != c.version || h.System != c.system {
				t.Errorf("hello = %+v", h)
			}
			ctx, usage := llm.WithUsage(t.Context())
			sys, err := p.Factory()(ctx, "ep/1")
			if err != nil {
				t.Fatal(err)
			}
			b := hotelRecall(t, ctx, sys)
			for _, it := range b.Items {
				if strings.Contains(it.Text, "stand-in answer") {
					t.Errorf("the system's own answer reached the bundle: %q", it.Text)
				}
				if !strings.HasPrefix(it.Text, "[2023-05-30 10:00] ") {
					t.Errorf("item %q lacks the session time", it.Text)
				}
			}
			if u := usage.Snapshot()["chat"]; u.Count == 0 || u.PromptTokens == 0 {
				t.Errorf("the library's chat calls were not accounted: %+v", usage.Snapshot())
			}
			if srv.PathStats("/v1/chat/completions").Requests == 0 {
				t.Error("the library never called the chat endpoint")
			}
			sys.(*System).Close()
			t.Run("Conformance", func(t *testing.T) {
				longForm(t)
				memorytest.Run(t, p.Factory(), bridgeConformance...)
			})
		})
	}
}

// TestBridgeEmbedders: A-MEM and LiCoMemory embed through arbor's embed
// role by default (bridges.<system>.embedder: role): every embedding their
// libraries make reaches the endpoint's /v1/embeddings with the configured
// embed model, and is accounted as the embed role; with native they use
// their own embedders and never call it.
func TestBridgeEmbedders(t *testing.T) {
	for _, system := range []string{"amem", "licomemory"} {
		for _, embedder := range []string{config.EmbedderRole, config.EmbedderNative} {
			t.Run(system+"/"+embedder, func(t *testing.T) {
				t.Parallel()
				srv, cfg := fakeModels(t)
				cfg.Models.Embed.Endpoints = []config.Endpoint{{URL: srv.URL, Model: "bge-m3-under-test"}}
				cfg.Bridges.Get(system).Embedder = embedder
				p := pythonBridge(t, cfg, system, "locomo")
				ctx, usage := llm.WithUsage(t.Context())
				sys, err := p.Factory()(ctx, "ep/1")
				if err != nil {
					t.Fatal(err)
				}
				defer sys.(*System).Close()
				hotelRecall(t, ctx, sys)
				bodies := srv.Bodies("/v1/embeddings")
				if embedder == config.EmbedderNative {
					if len(bodies) > 0 || usage.Snapshot()["embed"].Count > 0 {
						t.Errorf("native embedder: %d requests reached the embed endpoint", len(bodies))
					}
					return
				}
				if len(bodies) == 0 {
					t.Fatal("no embedding reached the embed endpoint")
				}
				for _, body := range bodies {
					var req struct {
						Model string   `json:"model"`
						Input []string `json:"input"`
					}
					if err := json.Unmarshal(body, &req); err != nil {
						t.Fatalf("embed request %s: %v", body, err)
					}
					if req.Model != "bge-m3-under-test" || len(req.Input) == 0 {
						t.Errorf("embed request for model %q with %d inputs, want bge-m3-under-test", req.Model, len(req.Input))
					}
				}
				if u := usage.Snapshot()["embed"]; u.Count != len(bodies) {
					t.Errorf("%d embed calls accounted, %d made", u.Count, len(bodies))
				}
			})
		}
	}
}

// hotelRecall commits two interactions to sys and recalls the first by a
// question about it.
func hotelRecall(t *testing.T, ctx context.Context, sys memory.System) memory.Bundle {
	t.Helper()
	for _, in := range []dialog.Interaction{
		interaction("i1", "I booked the Hotel Avenida in Lisbon for June."),
		interaction("i2", "My car is a blue Corolla and the brakes cost 300 euros."),
	} {
		if err := sys.Commit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	b, err := sys.Recall(ctx, memory.Query{Text: "Which hotel did I book in Lisbon?", Time: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !b.Sources()["i1"] {
		t.Fatalf("recall found %+v, want the hotel of i1", b.Items)
	}
	return b
}

// TestPythonMissingLibrary: without its library a sidecar fails at start
// with one line naming how to install it.
func TestPythonMissingLibrary(t *testing.T) {
	standIns(t)
	for _, system := range []string{"amem", "graphiti", "licomemory", "mem0"} {
		t.Run(system, func(t *testing.T) {
			_, cfg := fakeModels(t)
			if system == "mem0" {
				cfg.Bridges.Mem0.Command = []string{"python3", "scripts/bridges/python/mem0py.py"}
			}
			p := bridgePool(t, cfg, system, "locomo", "PYTHONPATH="+t.TempDir())
			_, err := p.Check(t.Context())
			if err == nil {
				t.Fatal("started without its library")
			}
			msg := err.Error()
			for _, w := range []string{system + " sidecar: exited (exit status 3) during hello: " + system + " sidecar: the Python module", "is not installed", "scripts/bridges/python/"} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestGraphitiEvery8: on BranchMemEval Graphiti's graph is updated every 8
// interactions; the rest wait, and are not recalled before their batch.
func TestGraphitiEvery8(t *testing.T) {
	_, cfg := fakeModels(t)
	p := pythonBridge(t, cfg, "graphiti", "branchmemeval")
	ctx := t.Context()
	sys, err := p.Factory()(ctx, "bme")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := sys.Commit(ctx, interaction(fmt.Sprintf("i%d", i), fmt.Sprintf("note number%d about the garden", i))); err != nil {
			t.Fatal(err)
		}
	}
	f, err := sys.(*System).Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Interactions != 10 || f.Pending != 2 || f.Units != 8 {
		t.Errorf("flush = %+v, want 10 interactions, 2 pending, 8 facts", f)
	}
	b, err := sys.Recall(ctx, memory.Query{Text: "garden number9 number3", Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	src := b.Sources()
	if src["i9"] || src["i8"] || !src["i3"] {
		t.Errorf("sources %v: want the first batch only", src)
	}
}

// TestCheckTable: `arbor endpoints check` skips bridges while the models are
// offline, fails an unknown one, and reports a started one's library.
func TestCheckTable(t *testing.T) {
	offline, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := Check(t.Context(), offline, []string{"mem0", "nosuch"})
	if rs[0].Status != "skipped" || rs[1].Status != "FAIL" || !strings.Contains(rs[1].Err, `"nosuch" is not bridged`) {
		t.Errorf("offline check = %+v", rs)
	}
	_, cfg := fakeModels(t)
	cfg.Bridges.AMem.Command = []string{os.Args[0]}
	t.Setenv("ARBOR_FAKE_SIDECAR", "ok")
	var b strings.Builder
	if err := RunCheck(t.Context(), cfg, []string{"amem"}, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ok      fakemem  0.1") {
		t.Errorf("check table:\n%s", b.String())
	}
}

// TestMem0NodeMissing: the Node sidecar without mem0ai installed fails at
// start with one line saying how to install it.
func TestMem0NodeMissing(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		realdeps.Missing(t, "node not found")
	}
	src, err := os.ReadFile(filepath.Join(bridgesDir, "mem0", "sidecar.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "sidecar.mjs") // no node_modules beside it
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, cfg := fakeModels(t)
	cfg.Bridges.Mem0.Command = []string{"node", script}
	spec, err := SpecFor(cfg, "mem0", "locomo")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPool(spec, words{}).Check(t.Context())
	want := "mem0 sidecar: exited (exit status 3) during hello: mem0 sidecar: the npm package mem0ai is not installed (MODULE_NOT_FOUND); run `npm ci` in scripts/bridges/mem0"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}
