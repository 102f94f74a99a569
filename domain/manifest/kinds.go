package manifest

import (
	"sort"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// KindOrder ranks kinds; kinds not listed come after, alphabetically.
type KindOrder []string

// InstallOrder is the order in which Helm creates kinds.
var InstallOrder = KindOrder{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService",
}

// UninstallOrder is the order in which Helm deletes kinds.
var UninstallOrder = KindOrder{
	"APIService", "Ingress", "IngressClass", "Service", "CronJob", "Job", "StatefulSet",
	"HorizontalPodAutoscaler", "Deployment", "ReplicaSet", "ReplicationController", "Pod",
	"DaemonSet", "RoleBindingList", "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList",
	"ClusterRoleBinding", "ClusterRoleList", "ClusterRole", "CustomResourceDefinition",
	"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList",
	"Secret", "ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange",
	"ResourceQuota", "NetworkPolicy", "Namespace", "PriorityClass",
}

// InstallOrderHelm4 is Helm 4's install order: Helm 3's, then the webhook
// configurations (mutating first), so a webhook never sees objects before its
// backend exists. Before Helm 4 they sorted with the unknown kinds, by name.
var InstallOrderHelm4 = append(InstallOrder[:len(InstallOrder):len(InstallOrder)],
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")

// UninstallOrderHelm4 is Helm 4's uninstall order: the webhook configurations
// first (validating before mutating, so they cannot block the removal), then
// Helm 3's.
var UninstallOrderHelm4 = append(KindOrder{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"},
	UninstallOrder...)

// InstallOrderFor is the dialect's install order.
func InstallOrderFor(d dialect.Dialect) KindOrder {
	if d.IsHelm4() {
		return InstallOrderHelm4
	}
	return InstallOrder
}

// UninstallOrderFor is the dialect's uninstall order.
func UninstallOrderFor(d dialect.Dialect) KindOrder {
	if d.IsHelm4() {
		return UninstallOrderHelm4
	}
	return UninstallOrder
}

// kindRanks are the positions of an order's kinds.
type kindRanks map[string]int

func (r kindRanks) less(kindA, kindB string) bool {
	a, aok := r[kindA]
	b, bok := r[kindB]
	switch {
	case !aok && !bok:
		return kindA < kindB
	case !aok:
		return false
	case !bok:
		return true
	}
	return a < b
}

func ranksOf(o KindOrder) kindRanks {
	rank := make(kindRanks, len(o))
	for i, k := range o {
		rank[k] = i
	}
	return rank
}

// SortManifests orders manifests by kind, stably.
func SortManifests(ms []Manifest, order KindOrder) []Manifest {
	rank := ranksOf(order)
	sort.SliceStable(ms, func(i, j int) bool { return rank.less(ms[i].Head.Kind, ms[j].Head.Kind) })
	return ms
}

// SortHooks orders hooks by kind, stably (weights are applied when hooks run).
func SortHooks(hs []*release.Hook, order KindOrder) []*release.Hook {
	rank := ranksOf(order)
	sort.SliceStable(hs, func(i, j int) bool { return rank.less(hs[i].Kind, hs[j].Kind) })
	return hs
}
