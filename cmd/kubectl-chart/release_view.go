package main

import (
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// writeRelease writes a release as the dialect's Helm prints one with
// -o json|yaml: its members in Helm's order, Helm's own only (not what the
// record kept from whoever wrote it, nor our sequencing); Helm 4 leaves out
// zero times and adds the apply method and the revision a rollback
// deployed, Helm 3 writes a zero time as "" and knows neither.
func writeRelease(out io.Writer, format string, d dialect.Dialect, rel *release.Release) error {
	v := releaseView{Name: rel.Name, Chart: rel.Chart, Config: rel.Config, Manifest: rel.Manifest, Hooks: rel.Hooks,
		Version: rel.Version, Namespace: rel.Namespace}
	if d.IsHelm4() {
		v.ApplyMethod = rel.ApplyMethod
		v.Chart, v.Hooks = rel.Chart.Helm4Record(), release.Helm4Hooks(rel.Hooks)
	}
	if i := rel.Info; i != nil {
		if d.IsHelm4() {
			v.Info = helm4Info{FirstDeployed: nonZero(i.FirstDeployed), LastDeployed: nonZero(i.LastDeployed), Deleted: nonZero(i.Deleted),
				Description: i.Description, Status: i.Status, RollbackRevision: i.RollbackRevision, Notes: i.Notes, Resources: i.Resources}
		} else {
			v.Info = helm3Info{FirstDeployed: i.FirstDeployed, LastDeployed: i.LastDeployed, Deleted: i.Deleted,
				Description: i.Description, Status: i.Status, Notes: i.Notes, Resources: i.Resources}
		}
	}
	return writeStructured(out, format, v)
}

// releaseView is Helm's release, as both print it.
type releaseView struct {
	Name        string              `json:"name,omitempty"`
	Info        any                 `json:"info,omitempty"`
	Chart       *chart.Chart        `json:"chart,omitempty"`
	Config      map[string]any      `json:"config,omitempty"`
	Manifest    string              `json:"manifest,omitempty"`
	Hooks       []*release.Hook     `json:"hooks,omitempty"`
	Version     int                 `json:"version,omitempty"`
	Namespace   string              `json:"namespace,omitempty"`
	ApplyMethod release.ApplyMethod `json:"apply_method,omitempty"`
}

// helm4Info is Helm 4's info: no zero times.
type helm4Info struct {
	FirstDeployed    *release.Time               `json:"first_deployed,omitempty"`
	LastDeployed     *release.Time               `json:"last_deployed,omitempty"`
	Deleted          *release.Time               `json:"deleted,omitempty"`
	Description      string                      `json:"description,omitempty"`
	Status           release.Status              `json:"status,omitempty"`
	RollbackRevision int                         `json:"rollback_revision,omitempty"`
	Notes            string                      `json:"notes,omitempty"`
	Resources        map[string][]map[string]any `json:"resources,omitempty"`
}

// helm3Info is Helm 3's info: every time, "" when zero.
type helm3Info struct {
	FirstDeployed release.Time                `json:"first_deployed"`
	LastDeployed  release.Time                `json:"last_deployed"`
	Deleted       release.Time                `json:"deleted"`
	Description   string                      `json:"description,omitempty"`
	Status        release.Status              `json:"status,omitempty"`
	Notes         string                      `json:"notes,omitempty"`
	Resources     map[string][]map[string]any `json:"resources,omitempty"`
}

func nonZero(t release.Time) *release.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
