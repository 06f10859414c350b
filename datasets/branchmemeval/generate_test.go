package branchmemeval

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

var update = flag.Bool("update", false, "rewrite branchmemeval.json and golden files")

// generated caches Generate(42): several tests need it and it is pure.
var generated = struct {
	f *File
	b []byte
}{}

func gen42(t *testing.T) (*File, []byte) {
	t.Helper()
	if generated.f == nil {
		f, err := Generate(context.Background(), Options{Seed: DefaultSeed})
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		generated.f, generated.b = f, b
	}
	return generated.f, generated.b
}

func TestShippedIsSeed42(t *testing.T) {
	_, b := gen42(t)
	if *update {
		if err := os.WriteFile("branchmemeval.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b, Shipped()) {
		t.Fatalf("embedded branchmemeval.json (%d bytes) differs from Generate(seed 42) (%d bytes); run go test ./datasets/branchmemeval -run TestShippedIsSeed42 -update", len(Shipped()), len(b))
	}
}

func TestGenerateDeterministic(t *testing.T) {
	_, a := gen42(t)
	f, err := Generate(context.Background(), Options{Seed: DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.Marshal()
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different bytes")
	}
	f7, err := Generate(context.Background(), Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := f7.Marshal()
	if bytes.Equal(a, c) {
		t.Fatal("seed 7 gave the same bytes as seed 42")
	}
	if issues := Validate(f7); len(issues) > 0 {
		t.Fatalf("seed 7 does not validate: %v", issues[0])
	}
	if f7.Seed != 7 || f7.Sessions[0].Turns[0].User == f.Sessions[0].Turns[0].User {
		t.Fatalf("seed 7 looks like seed 42")
	}
	st := ComputeStats(f7, nil, "")
	if st.Sessions != 33 || st.Questions != 100 || st.Interactions != 1442 {
		t.Fatalf("seed 7 composition %d/%d/%d", st.Sessions, st.Questions, st.Interactions)
	}
}

// The shipped set reproduces appendix B.1 exactly.
func TestShippedComposition(t *testing.T) {
	f, err := Parse(Shipped(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	if issues := Validate(f); len(issues) > 0 {
		t.Fatalf("%d issues, first: %v", len(issues), issues[0])
	}
	st := ComputeStats(f, nil, "")
	if st.Sessions != 33 || st.Questions != 100 || st.Interactions != 1442 || st.Turns != 1542 {
		t.Fatalf("got %d sessions, %d questions, %d interactions, %d turns", st.Sessions, st.Questions, st.Interactions, st.Turns)
	}
	if st.MinTurns < 42 || st.MaxTurns > 52 || fmt.Sprintf("%.2f", st.MeanTurns) != "46.73" {
		t.Fatalf("turns %d–%d mean %.4f", st.MinTurns, st.MaxTurns, st.MeanTurns)
	}
	want := map[string]struct {
		sessions int
		dims     string
	}{
		FamilyBackjump: {8, "B1 16, B2 16"},
		FamilyArtifact: {8, "B3 24"},
		FamilyTwin:     {10, "B1 10, B5 20"},
		FamilyBridge:   {7, "B4 14"},
	}
	if len(st.Families) != 4 {
		t.Fatalf("%d families", len(st.Families))
	}
	for _, fs := range st.Families {
		var parts []string
		for _, d := range fs.Dims {
			parts = append(parts, d.Dimension+" "+itoa(d.Count))
		}
		w := want[fs.Family]
		if fs.Sessions != w.sessions || strings.Join(parts, ", ") != w.dims {
			t.Errorf("family %s: %d sessions, %s; want %d, %s", fs.Family, fs.Sessions, strings.Join(parts, ", "), w.sessions, w.dims)
		}
	}
	dims := map[string]int{}
	for _, d := range st.Dimensions {
		dims[d.Dimension] = d.Count
	}
	for d, n := range map[string]int{"B1": 26, "B2": 16, "B3": 24, "B4": 14, "B5": 20} {
		if dims[d] != n {
			t.Errorf("%s: %d questions, want %d", d, dims[d], n)
		}
	}
	// Every session interleaves 3 or 4 branches and every turn has a time
	// and a unique ID of the form sNN-tNNN.
	for _, s := range f.Sessions {
		seen := map[string]bool{}
		for _, tu := range s.Turns {
			if seen[tu.ID] || !strings.HasPrefix(tu.ID, s.ID+"-t") || len(tu.ID) != len(s.ID)+5 {
				t.Fatalf("bad or duplicate turn id %q", tu.ID)
			}
			seen[tu.ID] = true
		}
		span := s.Turns[len(s.Turns)-1].Time.Sub(s.Turns[0].Time)
		if span.Hours() < 1 {
			t.Errorf("session %s spans only %v", s.ID, span)
		}
	}
}

func TestStatsGolden(t *testing.T) {
	f, err := Parse(Shipped(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	st := ComputeStats(f, wordCounter{}, "words")
	var b bytes.Buffer
	if err := st.Render(&b, true); err != nil {
		t.Fatal(err)
	}
	tabletest.Golden(t, filepath.Join("testdata", "stats.golden"), b.Bytes())
	for _, line := range []string{
		"BranchMemEval: 33 sessions, 100 questions, 1,442 non-question interactions, 1,542 turns",
		"Turns per session (questions included): 42–52, mean 46.73",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("missing %q", line)
		}
	}
}

func TestCustomComposition(t *testing.T) {
	c := Composition{
		Families: []FamilySpec{
			{Family: FamilyBackjump, Sessions: 1, Questions: []DimCount{{DimResume, 1}, {DimLatest, 2}}},
			{Family: FamilyTwin, Sessions: 1, Questions: []DimCount{{DimTwin, 2}}},
			{Family: FamilyBridge, Sessions: 1, Questions: []DimCount{{DimBridge, 1}}},
			{Family: FamilyArtifact, Sessions: 1, Questions: []DimCount{{DimArtifact, 4}}},
		},
		Interactions: 4*40 - 10, MinTurns: 38, MaxTurns: 42,
	}
	f, err := Generate(context.Background(), Options{Seed: 3, Composition: &c})
	if err != nil {
		t.Fatal(err)
	}
	st := ComputeStats(f, nil, "")
	if st.Sessions != 4 || st.Questions != 10 || st.Interactions != 150 {
		t.Fatalf("got %+v", st)
	}
	bad := []Composition{
		{},
		{Families: []FamilySpec{{Family: "nope", Sessions: 1}}, Interactions: 40, MinTurns: 40, MaxTurns: 44},
		{Families: []FamilySpec{{Family: FamilyArtifact, Sessions: 1, Questions: []DimCount{{DimTwin, 1}}}}, Interactions: 40, MinTurns: 40, MaxTurns: 44},
		{Families: []FamilySpec{{Family: FamilyArtifact, Sessions: 1, Questions: []DimCount{{DimArtifact, 1}}}}, Interactions: 400, MinTurns: 40, MaxTurns: 44},
	}
	for i, b := range bad {
		if _, err := Generate(context.Background(), Options{Composition: &b}); err == nil {
			t.Errorf("bad composition %d accepted", i)
		}
	}
}

// Every template in the content tables renders without an unknown
// placeholder for every domain.
func TestTemplatesRender(t *testing.T) {
	r := newRNG(1, 1)
	sp := &sessionPlan{reg: &registry{}}
	for _, d := range domains {
		b := &branchPlan{id: "b1", dom: d, anchor: "Sam", rel: "my friend"}
		for _, c := range d.ctx {
			b.ctx = append(b.ctx, kv{c.name, sp.reg.draw(r, poolGen(c.pool, sp.dates))})
		}
		v := b.vars(r, kv{"v", "VALUE"}, kv{"label", "label"}, kv{"why", "why"}, kv{"what", "what"},
			kv{"L", "LINK"}, kv{"e", "event"}, kv{"ord", "third"}, kv{"num", "three"}, kv{"n", "3"}, kv{"ref", "ref"}, kv{"co", "Company"})
		var all []string
		all = append(all, d.title)
		all = append(all, d.alias...)
		all = append(all, d.introSelf...)
		all = append(all, d.introOther...)
		all = append(all, d.introReply...)
		all = append(all, d.list.ask...)
		for _, s := range d.slots {
			all = append(all, s.set...)
		}
		for _, s := range d.subs {
			all = append(all, s.ask...)
			all = append(all, s.say...)
		}
		for _, e := range sourceEvents {
			if e.dom == d.key {
				all = append(all, e.fact...)
				all = append(all, e.desc)
			}
		}
		for _, g := range [][]string{setGeneric, setTail, ackSet, ackPlain, updGeneric, updTail, ackUpd, askLatest, askTwin,
			answerSlot, answerLatest, askArtifact, answerArtifact, listIntro, listAskTail, resumeOpen, returnOpen, resumeTail, resumeReply,
			replyOpen, replyGeneric, replyGeneric2, replySpecific, replyClose, smalltalkReply, checklistIntro, bodyTransition} {
			all = append(all, g...)
		}
		for _, qs := range askResume {
			all = append(all, qs...)
		}
		for _, bt := range bridgeTargets {
			all = append(all, bt.fact...)
			all = append(all, bt.ack...)
			all = append(all, bt.ask...)
			all = append(all, bt.answer...)
		}
		for _, tmpl := range all {
			func() {
				defer func() {
					if p := recover(); p != nil {
						// Event facts may use another domain's variables only
						// when that domain hosts them; anything else is a bug.
						t.Errorf("domain %s: %v", d.key, p)
					}
				}()
				r.expand(tmpl, v)
			}()
		}
	}
}

type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func itoa(n int) string { return fmt.Sprint(n) }

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(context.Background(), Options{Seed: DefaultSeed}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadEmbedded(b *testing.B) {
	for b.Loop() {
		if _, err := Load(context.Background(), "", datasets.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	f, err := Parse(Shipped(), "embedded")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Validate(f)
	}
}
