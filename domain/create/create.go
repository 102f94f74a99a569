// Package create scaffolds new charts: Helm's create scaffold of the chosen dialect
// (a Deployment, Service, Ingress, HTTPRoute, HorizontalPodAutoscaler,
// ServiceAccount, NOTES.txt and a test hook), or a copy of a starter chart.
package create

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

//go:embed all:scaffold
var scaffold embed.FS

// Placeholder is replaced by the chart's name in scaffold and starter files.
const Placeholder = "<CHARTNAME>"

// File is a file of a new chart, by slash path relative to the chart directory.
type File struct {
	Name string
	Data []byte
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// maxNameLength is Helm's limit on a chart name.
const maxNameLength = 250

// ValidateName refuses chart names Helm's create refuses, in its words, and
// "." and "..", which Helm would take as the parent directory's chart.
func ValidateName(name string) error {
	switch {
	case name == "" || len(name) > maxNameLength:
		return fmt.Errorf("chart name must be between 1 and %d characters", maxNameLength)
	case name == "." || name == "..":
		return fmt.Errorf("chart name %q is not allowed", name)
	case !validName.MatchString(name):
		return fmt.Errorf("chart name must match the regular expression %q", validName.String())
	}
	return nil
}

// ChartsDir is the directory Helm's create leaves empty in a new chart, for its
// dependencies; the scaffold has no file there to carry it.
const ChartsDir = "charts"

// Variant names the scaffold directory Helm's create output of dialect d and
// chart API version v ("" is v2) is kept in: Helm 3.22, Helm 4.3.1, and Helm
// 4.3.1's experimental chart API v3, whose values.yaml differs too.
func Variant(d dialect.Dialect, v string) (string, error) {
	switch {
	case v != "" && v != APIVersionV2 && v != APIVersionV3:
		return "", fmt.Errorf("unsupported chart API version: %s (supported: v2, v3)", v)
	case !d.IsHelm4() && v == APIVersionV3:
		return "", fmt.Errorf("chart API version %s needs Helm 4's dialect", v)
	case !d.IsHelm4():
		return "helm3", nil
	case v == APIVersionV3:
		return "helm4-chartv3", nil
	}
	return "helm4", nil
}

// Scaffold returns the files of a new chart called name, as dialect d's Helm
// creates it with chart API version v ("" is v2), in the order Helm writes
// them (VARIANT.order, beside the files). The files are Helm's create output
// with the name replaced by the placeholder (made again from the Helm peers
// by cmd/kubectl-chart's TestCreateMatchesHelm -update-scaffold); ChartsDir
// is to be created empty beside them.
func Scaffold(name string, d dialect.Dialect, v string) ([]File, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	variant, err := Variant(d, v)
	if err != nil {
		return nil, err
	}
	root := path.Join("scaffold", variant)
	var files []File
	err = fs.WalkDir(scaffold, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := scaffold.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, File{Name: strings.TrimPrefix(p, root+"/"), Data: Transform(data, name)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	order, err := scaffold.ReadFile(root + ".order")
	if err != nil {
		return nil, err
	}
	rank := map[string]int{}
	for i, n := range strings.Split(strings.TrimSpace(string(order)), "\n") {
		rank[n] = i + 1
	}
	sort.Slice(files, func(i, j int) bool {
		ri, rj := rank[files[i].Name], rank[files[j].Name]
		if ri != rj {
			return ri != 0 && (rj == 0 || ri < rj)
		}
		return files[i].Name < files[j].Name
	})
	return files, nil
}

// FromStarter turns a starter chart's files into a chart called name: the placeholder is
// replaced everywhere and Chart.yaml's name set. Paths leaving the chart are refused.
func FromStarter(name string, starter []File) ([]File, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	out := make([]File, 0, len(starter))
	for _, f := range starter {
		clean := path.Clean(f.Name)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
			return nil, fmt.Errorf("starter file %q would be written outside the chart", f.Name)
		}
		out = append(out, File{Name: clean, Data: Transform(f.Data, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Transform replaces the placeholder with the chart's name.
func Transform(data []byte, name string) []byte {
	return []byte(strings.ReplaceAll(string(data), Placeholder, name))
}

// Chart API versions create writes.
const (
	APIVersionV2 = "v2"
	// APIVersionV3 is Helm 4's experimental chart API.
	APIVersionV3 = "v3"
)
