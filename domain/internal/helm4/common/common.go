// Package common holds the types Helm 4's templates see, under the names Helm 4 gives
// them (common.Values, common.Capabilities, ...): typeOf, printf "%T" and
// text/template's "wrong type for value; ... got common.Values" read as in Helm 4.
package common

import (
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/version"
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

// KubeVersion is Helm 4's KubeVersion: the version as given and, unexported as in
// Helm (printing the struct shows it), the normalised one.
type KubeVersion struct {
	Version           string
	normalizedVersion string
	Major             string
	Minor             string
}

// NewKubeVersion is a KubeVersion with its normalised version.
func NewKubeVersion(version, normalized, major, minor string) KubeVersion {
	return KubeVersion{Version: version, normalizedVersion: normalized, Major: major, Minor: minor}
}

// String is the normalised version, or Version when there is none.
func (kv *KubeVersion) String() string {
	if kv.normalizedVersion != "" {
		return kv.normalizedVersion
	}
	return kv.Version
}

// GitVersion is the version as given.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has reports whether the set holds apiVersion exactly.
func (v VersionSet) Has(apiVersion string) bool { return slices.Contains(v, apiVersion) }
