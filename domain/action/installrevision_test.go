package action_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// An install over an uninstalled release is recorded as the next revision
// but rendered as revision 1, as both Helms render every install (Helm
// v3.22.0's upgrade --install over an uninstalled release on the dev cluster).
func TestInstallRendersRevisionOne(t *testing.T) {
	h := newApplyHarness()
	spec := amSpec("old", "")
	spec.Chart.Templates = []*chart.File{{Name: "templates/x.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  revision: \"{{ .Release.Revision }}\"\n")}}
	ctx := context.Background()
	if _, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.l.Uninstall(ctx, action.UninstallRequest{ReleaseName: "r", Namespace: amNS, KeepHistory: true}); err != nil {
		t.Fatal(err)
	}
	rel, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: spec, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Version != 2 || !strings.Contains(rel.Manifest, `revision: "1"`) {
		t.Errorf("revision %d rendered as\n%s\nwant revision 2 rendered as 1", rel.Version, rel.Manifest)
	}
}
