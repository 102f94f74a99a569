package action

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// The live objects of a release as status shows them: each object the
// cluster has, in the manifest's order under Helm's keys, the pods each
// selector selects once, objects that are gone left out.
func TestLiveResources(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces("web"))
	for _, doc := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"web"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"web"},"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api2","namespace":"web"},"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"api-1","namespace":"web","labels":{"app":"api"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"other","namespace":"web","labels":{"app":"other"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
	} {
		var o ports.Object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Apply(ctx, o, ports.ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rel := &release.Release{Name: "web", Namespace: "web", Manifest: `---
# Source: c/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: gone
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api2
spec:
  selector:
    matchLabels: {app: api}
`}
	tests := map[string]struct {
		form ports.Form
		want string
	}{
		"objects": {ports.AsList, "v1/ConfigMap ConfigMap cfg; v1/Deployment Deployment api; v1/Pod(related) PodList [api-1]; v1/Deployment Deployment api2"},
		"tables":  {ports.AsTable, "v1/ConfigMap Table [cfg]; v1/Deployment Table [api]; v1/Pod(related) Table [api-1]; v1/Deployment Table [api2]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live, err := LiveResources(ctx, c, rel, tc.form)
			if err != nil {
				t.Fatal(err)
			}
			if got := describeLive(live); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("a kind the cluster does not serve", func(t *testing.T) {
		bad := &release.Release{Name: "web", Namespace: "web", Manifest: "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"}
		_, err := LiveResources(ctx, c, bad, ports.AsList)
		if !errors.Is(err, ports.ErrUnknownKind) {
			t.Errorf("err = %v, want ErrUnknownKind", err)
		}
	})
	t.Run("no manifest, no cluster", func(t *testing.T) {
		live, err := LiveResources(ctx, nil, &release.Release{Name: "web", Manifest: "\n"}, ports.AsTable)
		if err != nil || live != nil {
			t.Errorf("= %v, %v; want nothing", live, err)
		}
	})
}

// describeLive reads "KEY KIND NAME" per resource, with the names of a
// list's items or a table's rows.
func describeLive(live []LiveResource) string {
	s := ""
	for i, r := range live {
		if i > 0 {
			s += "; "
		}
		s += r.Key + " " + r.Object.GetKind() + " "
		switch {
		case r.Object.IsList():
			var names []string
			for _, it := range r.Object.Items() {
				names = append(names, it.GetName())
			}
			s += fmt.Sprint(names)
		case r.Object.GetKind() == "Table":
			var names []string
			rows, _ := r.Object["rows"].([]any)
			for _, row := range rows {
				cells, _ := row.(map[string]any)["cells"].([]any)
				names = append(names, fmt.Sprint(cells[0]))
			}
			s += fmt.Sprint(names)
		default:
			s += r.Object.GetName()
		}
	}
	return s
}
