// Package chart holds the chart model: metadata, templates, values, files and the
// tree of subcharts. Field names and JSON names follow Helm's, because release
// records embed the chart and must stay readable by Helm.
package chart

import (
	"encoding/json"
	"path"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"
)

// API versions of Chart.yaml.
const (
	APIVersionV1 = "v1"
	APIVersionV2 = "v2"
)

// File is a file of a chart, by its slash-separated path relative to the chart root.
type File struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
	// RecordModTime is the modtime a Helm 4 record holds (Helm4Record).
	RecordModTime json.RawMessage `json:"modtime,omitempty"`
	// ModTime is when the file was last modified, as loaded.
	ModTime time.Time `json:"-"`

	// rest is what the file's object in a release record held beyond these
	// fields (Helm 4's modtime); see record.go.
	rest jsonobj.Rest
}

// Chart is a loaded chart and, through Dependencies, its subcharts.
type Chart struct {
	// Raw holds every file as loaded, before sorting into the fields below.
	Raw       []*File        `json:"-"`
	Metadata  *Metadata      `json:"metadata"`
	Lock      *Lock          `json:"lock"`
	Templates []*File        `json:"templates"`
	Values    map[string]any `json:"values"`
	Schema    []byte         `json:"schema"`
	// RecordSchemaModTime and RecordModTime are what a Helm 4 record holds
	// (Helm4Record), in Helm 4's order, as read.
	RecordSchemaModTime json.RawMessage `json:"schemamodtime,omitempty"`
	// Files holds every other file (crds/, README, files for .Files ...).
	Files         []*File         `json:"files"`
	RecordModTime json.RawMessage `json:"modtime,omitempty"`
	// ModTime and SchemaModTime are Chart.yaml's and values.schema.json's
	// modification times, as loaded.
	ModTime       time.Time `json:"-"`
	SchemaModTime time.Time `json:"-"`

	parent       *Chart
	dependencies []*Chart
	// rest is what the chart's object in a release record held beyond these
	// fields (Helm 4's modtime, schemamodtime); see record.go.
	rest jsonobj.Rest
}

// CRD is a custom resource definition file shipped in a chart's crds/ directory.
type CRD struct {
	// Name is the file's path in its chart, e.g. "crds/foo.yaml".
	Name string
	// Filename is the path from the root chart, e.g. "parent/charts/sub/crds/foo.yaml".
	Filename string
	File     *File
}

// Name is the chart's name from its metadata.
func (c *Chart) Name() string {
	if c.Metadata == nil {
		return ""
	}
	return c.Metadata.Name
}

// IsRoot reports whether the chart is the top of its tree.
func (c *Chart) IsRoot() bool { return c.parent == nil }

// Parent is the chart that holds this one, nil for the root.
func (c *Chart) Parent() *Chart { return c.parent }

// Dependencies are the subcharts, in the order they are processed.
func (c *Chart) Dependencies() []*Chart { return c.dependencies }

// SetDependencies replaces the subcharts.
func (c *Chart) SetDependencies(charts ...*Chart) {
	c.dependencies = nil
	c.AddDependency(charts...)
}

// AddDependency appends subcharts and makes this chart their parent.
func (c *Chart) AddDependency(charts ...*Chart) {
	for _, sub := range charts {
		sub.parent = c
		c.dependencies = append(c.dependencies, sub)
	}
}

// ChartPath is the dotted path from the root, e.g. "parent.sub".
func (c *Chart) ChartPath() string {
	if c.IsRoot() {
		return c.Name()
	}
	return c.parent.ChartPath() + "." + c.Name()
}

// ChartFullPath is the template path prefix from the root, e.g. "parent/charts/sub".
func (c *Chart) ChartFullPath() string {
	if c.IsRoot() {
		return c.Name()
	}
	return c.parent.ChartFullPath() + "/charts/" + c.Name()
}

// IsLibrary reports whether the chart is a library chart (only partials render).
func (c *Chart) IsLibrary() bool {
	return c.Metadata != nil && strings.EqualFold(c.Metadata.Type, "library")
}

// AppVersion is the metadata's appVersion.
func (c *Chart) AppVersion() string {
	if c.Metadata == nil {
		return ""
	}
	return c.Metadata.AppVersion
}

// Validate checks the chart's metadata.
func (c *Chart) Validate() error { return c.Metadata.Validate() }

// CRDObjects lists the CRD files of this chart and then of each subchart, depth first.
func (c *Chart) CRDObjects() []CRD {
	var crds []CRD
	for _, f := range c.Files {
		if strings.HasPrefix(f.Name, "crds/") && hasManifestExtension(f.Name) {
			crds = append(crds, CRD{Name: f.Name, Filename: path.Join(c.ChartFullPath(), f.Name), File: f})
		}
	}
	for _, dep := range c.dependencies {
		crds = append(crds, dep.CRDObjects()...)
	}
	return crds
}

func hasManifestExtension(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}
