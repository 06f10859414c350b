package runners

import (
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
)

// FakeModel is the model id `arbor fake-endpoint` serves and
// configs/fake-endpoint.yaml names. A run whose manifest lists an endpoint
// serving it ran against the fake, and every table it produces says so:
// the fake replies with the offline rules, so such a table measures the
// model path's plumbing and parsing, not memory quality.
const FakeModel = "fake-model"

// fakeNote is the caption sentence of a run against the fake, "" for any
// other run.
func fakeNote(m *record.Manifest) string {
	if m == nil {
		return ""
	}
	roles := map[string]bool{}
	for _, e := range m.Endpoints {
		if e.Model == FakeModel {
			roles[e.Role] = true
		}
	}
	if len(roles) == 0 {
		return ""
	}
	names := make([]string, 0, len(roles))
	for r := range roles {
		names = append(names, r)
	}
	sort.Strings(names)
	return "Fake endpoint: the " + strings.Join(names, ", ") + " role(s) were served by arbor fake-endpoint (model " + FakeModel +
		"), which replies with the offline rules: this table measures the model path's plumbing and parsing, not memory quality."
}
