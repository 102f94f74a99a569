package release

import (
	"encoding/json"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"
)

// A record written by another program (a newer Helm) may hold members this
// model lacks, and may leave out members it writes (Helm 4 omits zero
// times). Decoding keeps both facts per object — the release, its info, its
// hooks and their last run (the chart keeps its own, see chart/record.go) —
// and encoding writes the record back as it was read but for what changed.
// A value that was never decoded encodes as the plain struct does.

var (
	releaseFields = jsonobj.FieldsOf(Release{})
	infoFields    = jsonobj.FieldsOf(Info{})
	hookFields    = jsonobj.FieldsOf(Hook{})
	hookRunFields = jsonobj.FieldsOf(HookExecution{})
)

// UnmarshalJSON decodes a record, keeping what it holds beyond the model.
func (r *Release) UnmarshalJSON(b []byte) error {
	type plain Release
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	r.rest = jsonobj.Read(b, releaseFields)
	return nil
}

// MarshalJSON encodes a record with what it kept when it was decoded; a
// Helm 4 revision as Helm 4 writes it (helm4Record).
func (r Release) MarshalJSON() ([]byte, error) {
	type plain Release
	if r.Dialect().IsHelm4() {
		r = r.helm4Record()
	}
	b, err := json.Marshal(plain(r))
	return r.rest.Write(b), err
}

// helm4Record is the release as Helm 4 writes it: its types leave zero
// times out (info's first_deployed, last_deployed and deleted, a hook's
// last run's started_at and completed_at), and its chart keeps the
// modification times it was loaded with.
func (r Release) helm4Record() Release {
	r.Chart = r.Chart.Helm4Record()
	if r.Info != nil {
		i := *r.Info
		i.rest = i.rest.Merged(jsonobj.Absent("first_deployed", "last_deployed", "deleted"))
		r.Info = &i
	}
	r.Hooks = Helm4Hooks(r.Hooks)
	return r
}

// Helm4Hooks are hooks as Helm 4 writes them: a last run's zero times left out.
func Helm4Hooks(hooks []*Hook) []*Hook {
	if hooks == nil {
		return nil
	}
	out := make([]*Hook, len(hooks))
	for k, h := range hooks {
		if h != nil {
			c := *h
			c.LastRun.rest = c.LastRun.rest.Merged(jsonobj.Absent("started_at", "completed_at"))
			h = &c
		}
		out[k] = h
	}
	return out
}

// UnmarshalJSON decodes a revision's info, keeping what it holds beyond the model.
func (i *Info) UnmarshalJSON(b []byte) error {
	type plain Info
	if err := json.Unmarshal(b, (*plain)(i)); err != nil {
		return err
	}
	i.rest = jsonobj.Read(b, infoFields)
	return nil
}

// MarshalJSON encodes a revision's info with what it kept when it was decoded.
func (i Info) MarshalJSON() ([]byte, error) {
	type plain Info
	b, err := json.Marshal(plain(i))
	return i.rest.Write(b), err
}

// UnmarshalJSON decodes a hook, keeping what it holds beyond the model.
func (h *Hook) UnmarshalJSON(b []byte) error {
	type plain Hook
	if err := json.Unmarshal(b, (*plain)(h)); err != nil {
		return err
	}
	h.rest = jsonobj.Read(b, hookFields)
	return nil
}

// MarshalJSON encodes a hook with what it kept when it was decoded.
func (h Hook) MarshalJSON() ([]byte, error) {
	type plain Hook
	b, err := json.Marshal(plain(h))
	return h.rest.Write(b), err
}

// UnmarshalJSON decodes a hook's last run, keeping what it holds beyond the model.
func (e *HookExecution) UnmarshalJSON(b []byte) error {
	type plain HookExecution
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	e.rest = jsonobj.Read(b, hookRunFields)
	return nil
}

// MarshalJSON encodes a hook's last run with what it kept when it was decoded.
func (e HookExecution) MarshalJSON() ([]byte, error) {
	type plain HookExecution
	b, err := json.Marshal(plain(e))
	return e.rest.Write(b), err
}
