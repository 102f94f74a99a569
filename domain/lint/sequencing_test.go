package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/lint"
)

func cm(name, annotations string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  annotations:\n" + annotations + "data:\n  k: v\n"
}

// lint reports what would refuse a sequenced install (HIP-0025) as errors.
func TestSequencingFindings(t *testing.T) {
	tests := map[string]struct {
		templates map[string]string
		want      []string
	}{
		"a cycle": {
			templates: map[string]string{
				"templates/a.yaml": cm("a", "    helm.sh/resource-group: a\n    helm.sh/depends-on/resource-groups: '[\"b\"]'\n"),
				"templates/b.yaml": cm("b", "    helm.sh/resource-group: b\n    helm.sh/depends-on/resource-groups: '[\"a\"]'\n"),
			},
			want: []string{"[ERROR] templates/: resource sequencing: resource groups of chart demo depend on each other in a cycle: a -> b -> a"},
		},
		"a group that does not exist": {
			templates: map[string]string{"templates/a.yaml": cm("a", "    helm.sh/resource-group: a\n    helm.sh/depends-on/resource-groups: '[\"db\"]'\n")},
			want:      []string{`[ERROR] templates/: resource sequencing: resource group "a" of chart demo depends on resource group "db", which no object of the chart is in`},
		},
		"one object in two groups": {
			templates: map[string]string{
				"templates/a.yaml": cm("same", "    helm.sh/resource-group: a\n"),
				"templates/b.yaml": cm("same", "    helm.sh/resource-group: b\n"),
			},
			want: []string{`[ERROR] templates/: resource sequencing: ConfigMap same is in two resource groups of chart demo: "a" and "b"`},
		},
		"only one readiness annotation": {
			templates: map[string]string{"templates/a.yaml": cm("a", "    helm.sh/readiness-success: '[\"{.ready} == true\"]'\n")},
			want:      []string{"[ERROR] templates/: resource sequencing: ConfigMap a: only one of helm.sh/readiness-success and helm.sh/readiness-failure is set: both are needed, the usual readiness rules apply"},
		},
		"a sound order": {
			templates: map[string]string{
				"templates/a.yaml": cm("a", "    helm.sh/resource-group: a\n"),
				"templates/b.yaml": cm("b", "    helm.sh/resource-group: b\n    helm.sh/depends-on/resource-groups: '[\"a\"]'\n"),
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"Chart.yaml": chartYAML, "values.yaml": ""}
			for k, v := range tc.templates {
				files[k] = v
			}
			res := lint.Lint(context.Background(), request(t, files, ""))
			var got []string
			for _, f := range res.Findings {
				if strings.Contains(f.Message, "resource sequencing") {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
