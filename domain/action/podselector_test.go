package action

import (
	"maps"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// The objects whose pods status lists as related, as both Helms choose them
// (by kind alone) and read their selectors.
func TestPodSelector(t *testing.T) {
	for name, c := range map[string]struct {
		manifest string
		want     map[string]string
		ok       bool
	}{
		"deployment": {
			manifest: "apiVersion: apps/v1\nkind: Deployment\nspec:\n  selector:\n    matchLabels: {app: web}\n",
			want:     map[string]string{"app": "web"}, ok: true,
		},
		"job": {
			manifest: "apiVersion: batch/v1\nkind: Job\nspec:\n  selector:\n    matchLabels: {job: x}\n",
			want:     map[string]string{"job": "x"}, ok: true,
		},
		"job without a selector selects every pod": {
			manifest: "apiVersion: batch/v1\nkind: Job\nspec: {}\n", ok: true,
		},
		"replication controller": {
			manifest: "apiVersion: v1\nkind: ReplicationController\nspec:\n  selector: {app: rc}\n",
			want:     map[string]string{"app": "rc"}, ok: true,
		},
		"statefulset of an old group": {
			manifest: "apiVersion: apps/v1beta2\nkind: StatefulSet\nspec:\n  selector:\n    matchLabels: {app: db}\n",
			want:     map[string]string{"app": "db"}, ok: true,
		},
		"service with a selector": {
			manifest: "apiVersion: v1\nkind: Service\nspec:\n  selector: {app: web}\n",
		},
		"service without a selector": {
			manifest: "apiVersion: v1\nkind: Service\nspec: {}\n",
		},
		"selector of other than strings selects every pod": {
			manifest: "apiVersion: apps/v1\nkind: Deployment\nspec:\n  selector:\n    matchLabels: {replicas: 3}\n", ok: true,
		},
		"configmap": {
			manifest: "apiVersion: v1\nkind: ConfigMap\n",
		},
	} {
		var o ports.Object
		if err := yaml.Unmarshal([]byte(c.manifest), &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, ok := podSelector(o)
		if ok != c.ok || !maps.Equal(got, c.want) {
			t.Errorf("%s: podSelector = %v, %v; want %v, %v", name, got, ok, c.want, c.ok)
		}
	}
}
