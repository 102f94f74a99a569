package manifest_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// kindManifests are Helm's kind-sorter fixtures: each name is one character so the
// resulting order reads as a string.
func kindManifests() []manifest.Manifest {
	kinds := []struct{ name, kind string }{
		{"U", "IngressClass"}, {"E", "SecretList"}, {"i", "ClusterRole"}, {"I", "ClusterRoleList"},
		{"j", "ClusterRoleBinding"}, {"J", "ClusterRoleBindingList"}, {"f", "ConfigMap"}, {"u", "CronJob"},
		{"2", "CustomResourceDefinition"}, {"n", "DaemonSet"}, {"r", "Deployment"}, {"!", "HonkyTonkSet"},
		{"v", "Ingress"}, {"t", "Job"}, {"c", "LimitRange"}, {"a", "Namespace"}, {"A", "NetworkPolicy"},
		{"g", "PersistentVolume"}, {"h", "PersistentVolumeClaim"}, {"o", "Pod"}, {"3", "PodDisruptionBudget"},
		{"C", "PodSecurityPolicy"}, {"q", "ReplicaSet"}, {"p", "ReplicationController"}, {"b", "ResourceQuota"},
		{"k", "Role"}, {"K", "RoleList"}, {"l", "RoleBinding"}, {"L", "RoleBindingList"}, {"e", "Secret"},
		{"m", "Service"}, {"d", "ServiceAccount"}, {"s", "StatefulSet"}, {"1", "StorageClass"},
		{"w", "APIService"}, {"x", "HorizontalPodAutoscaler"}, {"F", "PriorityClass"},
	}
	out := make([]manifest.Manifest, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, manifest.Manifest{Name: k.name, Head: &manifest.Head{Kind: k.kind}})
	}
	return out
}

// webhookManifests: a Service, a custom resource and both webhook configurations.
func webhookManifests() []manifest.Manifest {
	return []manifest.Manifest{
		{Name: "V", Head: &manifest.Head{Kind: "ValidatingWebhookConfiguration"}},
		{Name: "C", Head: &manifest.Head{Kind: "Certificate"}},
		{Name: "M", Head: &manifest.Head{Kind: "MutatingWebhookConfiguration"}},
		{Name: "s", Head: &manifest.Head{Kind: "Service"}},
	}
}

func manifestNames(ms []manifest.Manifest) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Name)
	}
	return b.String()
}

func TestSortManifestsByKind(t *testing.T) {
	sameKinds := func() []manifest.Manifest {
		var out []manifest.Manifest
		for _, k := range []struct{ name, kind string }{
			{"a", "ClusterRole"}, {"A", "ClusterRole"}, {"0", "ConfigMap"}, {"1", "ConfigMap"},
			{"z", "ClusterRoleBinding"}, {"!", "ClusterRoleBinding"}, {"u2", "Unknown"}, {"u1", "Unknown"}, {"t3", "Unknown2"},
		} {
			out = append(out, manifest.Manifest{Name: k.name, Head: &manifest.Head{Kind: k.kind}})
		}
		return out
	}
	tests := map[string]struct {
		in    func() []manifest.Manifest
		order manifest.KindOrder
		want  string
	}{
		"install order":   {in: kindManifests, order: manifest.InstallOrder, want: "FaAbcC3deEf1gh2iIjJkKlLmnopqrxstuUvw!"},
		"uninstall order": {in: kindManifests, order: manifest.UninstallOrder, want: "wvUmutsxrqponLlKkJjIi2hg1fEed3CcbAaF!"},
		"same kinds keep their order, unknown kinds last by name": {
			in: sameKinds, order: manifest.InstallOrder, want: "01aAz!u2u1t3",
		},
		"namespace before an unknown kind": {
			in: func() []manifest.Manifest {
				return []manifest.Manifest{{Name: "a", Head: &manifest.Head{Kind: "Unknown"}}, {Name: "b", Head: &manifest.Head{Kind: "Namespace"}}}
			},
			order: manifest.InstallOrder, want: "ba",
		},
		"unknown kinds alphabetically, case-sensitive": {
			in: func() []manifest.Manifest {
				var out []manifest.Manifest
				for _, k := range []string{"zeta", "Beta", "alpha", "Alpha", ""} {
					out = append(out, manifest.Manifest{Name: "[" + k + "]", Head: &manifest.Head{Kind: k}})
				}
				return out
			},
			order: manifest.InstallOrder, want: "[][Alpha][Beta][alpha][zeta]",
		},
		"helm3: webhook configurations sort with unknown kinds": {
			in: webhookManifests, order: manifest.InstallOrder, want: "sCMV",
		},
		"helm4: webhook configurations after APIService, before unknown kinds": {
			in: webhookManifests, order: manifest.InstallOrderHelm4, want: "sMVC",
		},
		"helm4 uninstall: validating, mutating, then the rest": {
			in: webhookManifests, order: manifest.UninstallOrderHelm4, want: "VMsC",
		},
		"custom order": {
			in: func() []manifest.Manifest {
				return []manifest.Manifest{
					{Name: "s", Head: &manifest.Head{Kind: "Service"}}, {Name: "x", Head: &manifest.Head{Kind: "Other"}},
					{Name: "p", Head: &manifest.Head{Kind: "Pod"}},
				}
			},
			order: manifest.KindOrder{"Pod", "Service"}, want: "psx",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := tc.in()
			if got := manifestNames(manifest.SortManifests(in, tc.order)); got != tc.want {
				t.Errorf("order = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSortHooksByKind(t *testing.T) {
	hooks := func() []*release.Hook {
		return []*release.Hook{
			{Name: "i", Kind: "ClusterRole"},
			{Name: "j", Kind: "ClusterRoleBinding"},
			{Name: "x", Kind: "Unknown", Weight: -100},
			{Name: "c", Kind: "LimitRange", Weight: 5},
			{Name: "a", Kind: "Namespace", Weight: 10},
		}
	}
	tests := map[string]struct {
		order manifest.KindOrder
		want  string
	}{
		"install":   {order: manifest.InstallOrder, want: "acijx"},
		"uninstall": {order: manifest.UninstallOrder, want: "jicax"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for _, h := range manifest.SortHooks(hooks(), tc.order) {
				b.WriteString(h.Name)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("order = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKindOrdersAreHelms(t *testing.T) {
	install := "PriorityClass Namespace NetworkPolicy ResourceQuota LimitRange PodSecurityPolicy PodDisruptionBudget ServiceAccount Secret SecretList ConfigMap StorageClass PersistentVolume PersistentVolumeClaim CustomResourceDefinition ClusterRole ClusterRoleList ClusterRoleBinding ClusterRoleBindingList Role RoleList RoleBinding RoleBindingList Service DaemonSet Pod ReplicationController ReplicaSet Deployment HorizontalPodAutoscaler StatefulSet Job CronJob IngressClass Ingress APIService"
	uninstall := "APIService Ingress IngressClass Service CronJob Job StatefulSet HorizontalPodAutoscaler Deployment ReplicaSet ReplicationController Pod DaemonSet RoleBindingList RoleBinding RoleList Role ClusterRoleBindingList ClusterRoleBinding ClusterRoleList ClusterRole CustomResourceDefinition PersistentVolumeClaim PersistentVolume StorageClass ConfigMap SecretList Secret ServiceAccount PodDisruptionBudget PodSecurityPolicy LimitRange ResourceQuota NetworkPolicy Namespace PriorityClass"
	tests := map[string]struct {
		order manifest.KindOrder
		want  string
	}{
		"install":          {manifest.InstallOrder, install},
		"uninstall":        {manifest.UninstallOrder, uninstall},
		"helm4 install":    {manifest.InstallOrderHelm4, install + " MutatingWebhookConfiguration ValidatingWebhookConfiguration"},
		"helm4 uninstall":  {manifest.UninstallOrderHelm4, "ValidatingWebhookConfiguration MutatingWebhookConfiguration " + uninstall},
		"helm3 by dialect": {manifest.InstallOrderFor(dialect.Helm3), install},
		"helm4 by dialect": {manifest.UninstallOrderFor(dialect.Helm4), "ValidatingWebhookConfiguration MutatingWebhookConfiguration " + uninstall},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := strings.Join(tc.order, " "); got != tc.want {
				t.Errorf("order =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
