// Package chartfile is the shape of Helm's Chart.yaml and Chart.lock types (Helm's fields,
// in its order), which Helm 3 declares in its package chart and Helm 4 in its chart v2 and
// chart v3 packages: the packages helm3/chart, helm4/v2 and helm4/v3 give it those names,
// which templates (printed values, typeOf) and decoding errors show.
package chartfile

import "time"

// Metadata is Chart.yaml, with Helm's maintainer and dependency types M and D.
type Metadata[M, D any] struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []M               `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []D               `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// Maintainer is Metadata.maintainers' element.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Dependency is Metadata.dependencies' and Lock.dependencies' element.
type Dependency struct {
	Name         string   `json:"name"`
	Version      string   `json:"version,omitempty"`
	Repository   string   `json:"repository"`
	Condition    string   `json:"condition,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Enabled      bool     `json:"enabled,omitempty"`
	ImportValues []any    `json:"import-values,omitempty"`
	Alias        string   `json:"alias,omitempty"`
}

// Lock is Chart.lock, with Helm's dependency type D.
type Lock[D any] struct {
	Generated    time.Time `json:"generated"`
	Digest       string    `json:"digest"`
	Dependencies []D       `json:"dependencies"`
}
