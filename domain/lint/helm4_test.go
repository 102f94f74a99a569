package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/lint"
)

// Lint renders the templates in the request's dialect: Helm 4's functions exist
// only there, and its documents keep their trailing blank lines.
func TestLintRendersInTheDialect(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":  chartYAML,
		"values.yaml": "data:\n  a: b\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
			"{{ mustToYaml .Values.data | indent 2 }}\n\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n",
	}
	tests := map[string]struct {
		d       dialect.Dialect
		failed  bool
		finding string
	}{
		"helm4": {d: dialect.Helm4},
		"helm3": {d: dialect.Helm3, failed: true, finding: `function "mustToYaml" not defined`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := request(t, files, "")
			req.Dialect = tc.d
			res := lint.Lint(context.Background(), req)
			var all []string
			for _, f := range res.Findings {
				all = append(all, f.String())
			}
			if res.Failed(false) != tc.failed {
				t.Fatalf("failed = %v, findings:\n%s", res.Failed(false), strings.Join(all, "\n"))
			}
			if tc.finding != "" && !strings.Contains(strings.Join(all, "\n"), tc.finding) {
				t.Errorf("findings lack %q:\n%s", tc.finding, strings.Join(all, "\n"))
			}
		})
	}
}
