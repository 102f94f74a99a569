// Package chart holds Helm 3's chart metadata types under Helm 3's names (chart.Metadata,
// []*chart.Dependency, ...) and with its fields only: .Chart in the Helm 3 dialect is built
// of them, so that a template printing a dependency or maintainer (range, first, print)
// shows what Helm 3 shows, without the fields kubectl chart models beyond Helm's.
package chart

import (
	domain "github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/chartfile"
)

// Maintainer is Metadata.Maintainers' element.
type Maintainer chartfile.Maintainer

// Dependency is Metadata.Dependencies' element.
type Dependency chartfile.Dependency

// Metadata is a chart's Chart.yaml.
type Metadata chartfile.Metadata[*Maintainer, *Dependency]

// FromMetadata is md with Helm 3's types.
func FromMetadata(md *domain.Metadata) Metadata {
	out := Metadata{
		Name: md.Name, Home: md.Home, Sources: md.Sources, Version: md.Version,
		Description: md.Description, Keywords: md.Keywords, Icon: md.Icon,
		APIVersion: md.APIVersion, Condition: md.Condition, Tags: md.Tags,
		AppVersion: md.AppVersion, Deprecated: md.Deprecated, Annotations: md.Annotations,
		KubeVersion: md.KubeVersion, Type: md.Type,
	}
	if md.Maintainers != nil {
		out.Maintainers = make([]*Maintainer, len(md.Maintainers))
		for i, m := range md.Maintainers {
			if m != nil {
				out.Maintainers[i] = &Maintainer{Name: m.Name, Email: m.Email, URL: m.URL}
			}
		}
	}
	if md.Dependencies != nil {
		out.Dependencies = make([]*Dependency, len(md.Dependencies))
		for i, d := range md.Dependencies {
			if d != nil {
				out.Dependencies[i] = &Dependency{
					Name: d.Name, Version: d.Version, Repository: d.Repository, Condition: d.Condition,
					Tags: d.Tags, Enabled: d.Enabled, ImportValues: d.ImportValues, Alias: d.Alias,
				}
			}
		}
	}
	return out
}
