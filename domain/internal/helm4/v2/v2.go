// Package v2 holds the chart file types of Helm 4's chart v2 (pkg/chart/v2), read for charts
// of API version v1 and v2 (and for every chart show and dependency list read), under Helm's
// names (v2.Metadata, []*v2.Dependency, ...): a Chart.yaml or Chart.lock that does not decode
// is decoded again into these, so that the error names the Go types Helm 4 names.
package v2

import "github.com/kubectl-chart/kubectl-chart/domain/internal/chartfile"

// Maintainer is Metadata.maintainers' element.
type Maintainer chartfile.Maintainer

// Dependency is Metadata.dependencies' and Lock.dependencies' element.
type Dependency chartfile.Dependency

// Metadata is Chart.yaml.
type Metadata chartfile.Metadata[*Maintainer, *Dependency]

// Lock is Chart.lock.
type Lock chartfile.Lock[*Dependency]
