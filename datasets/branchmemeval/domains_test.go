package branchmemeval

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The embedded domain files load, in their file order, and every pool they
// name exists (poolGen panics on an unknown one).
func TestDomainFiles(t *testing.T) {
	ds, err := loadDomains(domainFiles, "domains")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range ds {
		keys = append(keys, d.key)
		for _, c := range d.ctx {
			poolGen(c.pool, dateGen{})
		}
		for _, s := range d.slots {
			poolGen(s.pool, dateGen{})
		}
	}
	// The planner shuffles this list with the seed: reordering it changes
	// every generated set.
	if got, want := strings.Join(keys, " "), "trip wedding renovation job paper course move fitness party car"; got != want {
		t.Errorf("domains in order %q, want %q", got, want)
	}
}

// A broken domain file is an error naming the file, never a domain with
// empty fields.
func TestDomainFilesBroken(t *testing.T) {
	good, err := domainFiles.ReadFile("domains/01-trip.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file, body, want string
	}{
		{"unknown field", "d/01-trip.yaml", string(good) + "colour: red\n", "field colour not found"},
		{"misspelt field", "d/01-trip.yaml", strings.Replace(string(good), "intro_self:", "introSelf:", 1), "field introSelf not found"},
		{"not yaml", "d/01-trip.yaml", "key: [trip\n", "decode"},
		{"named for another key", "d/01-boat.yaml", string(good), "does not end in -trip.yaml"},
		{"missing list", "d/01-trip.yaml", string(good[:strings.Index(string(good), "list:")]), "list.ask is empty"},
		{"update without reasons", "d/01-trip.yaml", strings.Replace(string(good), "    why:\n      - the flights came in cheaper than expected\n      - we decided to add two extra nights\n", "", 1), `slot "budget": an updatable slot needs reasons`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadDomains(fstest.MapFS{c.file: {Data: []byte(c.body)}}, "d")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
				t.Errorf("error %v, want one naming %s and containing %q", err, c.file, c.want)
			}
		})
	}
	if _, err := loadDomains(fstest.MapFS{}, "d"); err == nil {
		t.Error("an empty folder loaded without error")
	}
}
