package main

import (
	"bytes"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Objects an upgrade or rollback wrote over as they were are logged as Helm
// v4.3.1's update logs them (checked against it on the dev cluster: a
// rollback to a revision holding an object the failed upgrade after it did
// not delete), in the order they were told, even when the progress is quiet.
func TestLogHelm4Baselines(t *testing.T) {
	p := &eventPrinter{quiet: true, pending: map[string]string{}}
	for _, ref := range []ports.ObjectRef{
		{APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "s"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "gone"},
	} {
		p.print(action.Event{Type: action.EventBaseline, Object: ref.String(), Ref: ref})
	}
	p.print(action.Event{Type: action.EventApplied, Object: "ConfigMap ns/a"})
	var out bytes.Buffer
	logHelm4Baselines(&out, p)
	want := `level=WARN msg="resource exists on cluster but not in original release, using cluster state as baseline" namespace=ns name=s kind=Secret
level=WARN msg="resource exists on cluster but not in original release, using cluster state as baseline" namespace=ns name=gone kind=ConfigMap
`
	if out.String() != want {
		t.Errorf("logged\n%s\nwant\n%s", out.String(), want)
	}
}
