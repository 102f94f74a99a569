// Package benchrecords builds the release records of the `list` benchmarks
// (hack/bench.sh): a chart of typical size (30 templates of a few dozen
// lines) and realistic revisions of it.
package benchrecords

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Chart is a chart of typical size: 30 templates of a few dozen lines.
func Chart() *chart.Chart {
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "service", Version: "4.2.0", AppVersion: "1.27.3", Type: "application",
			Description: "A typical service chart for benchmarks"},
		Values: map[string]any{"replicaCount": float64(2), "image": map[string]any{"repository": "nginx", "tag": "1.27.3"}},
	}
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"service.fullname\" . }}-%d\n  labels:\n    {{- include \"service.labels\" . | nindent 4 }}\ndata:\n", i)
		for j := range 30 {
			fmt.Fprintf(&b, "  key-%d-%d: {{ .Values.image.tag | quote }}-%d\n", i, j, i*j)
		}
		c.Templates = append(c.Templates, &chart.File{Name: fmt.Sprintf("templates/cm-%02d.yaml", i), Data: []byte(b.String())})
	}
	return c
}

// Release is revision rev of release name in ns, of a history of last
// revisions: the last deployed, the others superseded.
func Release(ch *chart.Chart, ns, name string, rev, last int) *release.Release {
	status := release.StatusSuperseded
	if rev == last {
		status = release.StatusDeployed
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rev) * time.Hour)
	var manifest strings.Builder
	for i := range 30 {
		fmt.Fprintf(&manifest, "---\n# Source: service/templates/cm-%02d.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-%d\ndata:\n  revision: \"%d\"\n", i, name, i, rev)
	}
	return &release.Release{
		Name: name, Namespace: ns, Version: rev,
		Info: &release.Info{
			FirstDeployed: release.Time{Time: at}, LastDeployed: release.Time{Time: at},
			Status: status, Description: "Upgrade complete", Notes: "Service " + name + " is running.",
		},
		Chart:    ch,
		Config:   map[string]any{"replicaCount": float64(rev % 3)},
		Manifest: manifest.String(),
	}
}
