// Package create scaffolds new charts: a ready-to-install chart with a Deployment,
// Service, Ingress, HorizontalPodAutoscaler, ServiceAccount, NOTES.txt, a test hook and
// a values schema, or a copy of a starter chart.
package create

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
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

// ValidateName refuses chart names that are not a single safe path element.
func ValidateName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("chart name %q is not allowed", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("chart name %q must not contain a path separator", name)
	case !validName.MatchString(name):
		return fmt.Errorf("chart name %q is invalid: use letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// Scaffold returns the files of a new chart called name, sorted by path.
func Scaffold(name string) ([]File, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	var files []File
	err := fs.WalkDir(scaffold, "scaffold", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := scaffold.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, File{Name: strings.TrimPrefix(p, "scaffold/"), Data: Transform(data, name)})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, err
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

// ScaffoldVersion is Scaffold with Chart.yaml's apiVersion set to v (v2 or
// v3; the files are otherwise the same, as in Helm 4).
func ScaffoldVersion(name, v string) ([]File, error) {
	files, err := Scaffold(name)
	if err != nil || v == "" || v == APIVersionV2 {
		return files, err
	}
	for i, f := range files {
		if f.Name == "Chart.yaml" {
			files[i].Data = bytes.Replace(f.Data, []byte("apiVersion: v2\n"), []byte("apiVersion: "+v+"\n"), 1)
		}
	}
	return files, nil
}
