// Package v3 holds the chart file types of Helm 4's chart v3 (internal/chart/v3), read for
// charts of API version v3, under Helm's names (v3.Metadata, []*v3.Dependency, ...): a
// Chart.yaml or Chart.lock that does not decode is decoded again into these, so that the
// error names the Go types Helm 4 names.
package v3

import "github.com/kubectl-chart/kubectl-chart/domain/internal/chartfile"

// Maintainer is Metadata.maintainers' element.
type Maintainer chartfile.Maintainer

// Dependency is Metadata.dependencies' and Lock.dependencies' element.
type Dependency chartfile.Dependency

// Metadata is Chart.yaml.
type Metadata chartfile.Metadata[*Maintainer, *Dependency]

// Lock is Chart.lock.
type Lock chartfile.Lock[*Dependency]
