package runners

import "fmt"

// allLocal reports whether every role of the dry run ran in-process.
func (r *DryReport) allLocal() bool {
	for _, rc := range r.Roles {
		if !rc.Local {
			return false
		}
	}
	return true
}

// localEstimate is the time estimate of a run whose every role is local:
// the dry run was the run (every call in-process, nothing to wait for), so
// its own wall time is the estimate and no --throughput is needed.
func (r *DryReport) localEstimate() {
	if !r.allLocal() || r.Upper > 0 {
		return
	}
	r.Lower, r.Upper = r.Elapsed, r.Elapsed
	r.Notes = append(r.Notes, fmt.Sprintf("Every role is local: the dry run did the run's work, so its own time (%s on this machine) is the estimate; no throughput is needed.", human(r.Elapsed)))
}
