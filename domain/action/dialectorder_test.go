package action_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// webhookChart holds both webhook configurations and a Service.
func webhookChart() *chart.Chart {
	doc := func(apiVersion, kind, name string) string {
		return "---\napiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n"
	}
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "w", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/all.yaml", Data: []byte(
			doc("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "v") +
				doc("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "m") +
				doc("v1", "Service", "s") + "spec:\n  ports: [{port: 80}]\n")}},
	}
}

// An uninstall deletes in the uninstall order of the dialect its revision was
// rendered in: Helm 4 removes the validating webhook, then the mutating one,
// before anything else; Helm 3 knows neither kind and sorts them by name.
func TestUninstallOrderFollowsTheRevisionsDialect(t *testing.T) {
	tests := map[string]struct {
		dialect dialect.Dialect
		want    string
	}{
		"helm4": {dialect.Helm4, "ValidatingWebhookConfiguration/v MutatingWebhookConfiguration/m Service/s"},
		"helm3": {dialect.Helm3, "MutatingWebhookConfiguration/m ValidatingWebhookConfiguration/v Service/s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h := newApplyHarness()
			spec := action.ReleaseSpec{Chart: webhookChart(), ReleaseName: "r", Namespace: amNS, Dialect: tc.dialect}
			if _, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
				t.Fatal(err)
			}
			p, err := h.l.PreviewUninstall(ctx, action.UninstallRequest{ReleaseName: "r", Namespace: amNS})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Steps() {
				got = append(got, s.Ref.Kind+"/"+s.Ref.Name)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("delete order\n got %s\nwant %s", strings.Join(got, " "), tc.want)
			}
		})
	}
}
