// Package show formats a chart's metadata, values, README and CRDs as `helm show` does.
package show

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Format selects what Text shows.
type Format string

// Formats of `show`.
const (
	All    Format = "all"
	Chart  Format = "chart"
	Values Format = "values"
	Readme Format = "readme"
	CRDs   Format = "crds"
)

var readmeNames = []string{"readme.md", "readme.txt", "readme"}

// Text renders what f selects of c as the dialect's Helm release does: Helm 4 puts a
// "---" line before every CRD that does not start with one, Helm 3 only before the
// first CRD of `show all`.
func Text(c *chart.Chart, f Format, d dialect.Dialect) (string, error) {
	cf, err := yaml.Marshal(c.Metadata)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	if f == Chart || f == All {
		fmt.Fprintf(&out, "%s\n", cf)
	}
	if (f == Values || f == All) && c.Values != nil {
		if f == All {
			fmt.Fprintln(&out, "---")
		}
		for _, file := range c.Raw {
			if file.Name == "values.yaml" {
				fmt.Fprintln(&out, string(file.Data))
			}
		}
	}
	if f == Readme || f == All {
		if r := FindReadme(c.Files); r != nil {
			if f == All {
				fmt.Fprintln(&out, "---")
			}
			fmt.Fprintf(&out, "%s\n", r.Data)
		}
	}
	if f == CRDs || f == All {
		crds := c.CRDObjects()
		if len(crds) > 0 {
			if !d.IsHelm4() && f == All && !bytes.HasPrefix(crds[0].File.Data, []byte("---")) {
				fmt.Fprintln(&out, "---")
			}
			for _, crd := range crds {
				if d.IsHelm4() && !bytes.HasPrefix(crd.File.Data, []byte("---")) {
					fmt.Fprintln(&out, "---")
				}
				fmt.Fprintf(&out, "%s\n", string(crd.File.Data))
			}
		}
	}
	return out.String(), nil
}

// FindReadme returns the chart's top-level README, matched case-insensitively.
func FindReadme(files []*chart.File) *chart.File {
	for _, f := range files {
		for _, n := range readmeNames {
			if f != nil && strings.EqualFold(f.Name, n) {
				return f
			}
		}
	}
	return nil
}
