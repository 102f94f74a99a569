// Package chartutil holds the types Helm 3's templates see, under the names Helm 3 gives
// them (chartutil.Values, chartutil.Capabilities, ...): typeOf, printf "%T" and
// text/template's "wrong type for value; ... got chartutil.Values" read as in Helm 3.
package chartutil

import (
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/version"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"slices"
)

// Values is the top object of a template, .Values and .Template.
type Values map[string]any

// AsMap is the values as a plain map.
func (v Values) AsMap() map[string]any { return values.Values(v).AsMap() }

// Table is the table at a dotted path.
func (v Values) Table(name string) (Values, error) {
	t, err := values.Values(v).Table(name)
	return Values(t), err
}

// PathValue is the value at a dotted path.
func (v Values) PathValue(p string) (any, error) { return values.Values(v).PathValue(p) }

// Capabilities is .Capabilities.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion version.BuildInfo
}

// KubeVersion is .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

// String is the full version.
func (kv *KubeVersion) String() string { return kv.Version }

// GitVersion is the full version.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has reports whether the set holds apiVersion exactly.
func (v VersionSet) Has(apiVersion string) bool { return slices.Contains(v, apiVersion) }
