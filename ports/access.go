package ports

import (
	"cmp"
	"fmt"
	"slices"
)

// Access is one permission an operation needs: a verb on a resource in a
// namespace. The resource is named by the kind of its objects (APIVersion and
// Kind, which the reviewer maps to its resource), or directly by Group and
// Resource (the plural, "deployments") when the cluster does not serve it yet
// (a custom resource whose CRD the operation installs first).
type Access struct {
	Verb       string `json:"verb"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Group      string `json:"group,omitempty"`
	Resource   string `json:"resource,omitempty"`
	// Namespace is "" for cluster-scoped resources.
	Namespace string `json:"namespace,omitempty"`
}

// Verbs of the Kubernetes API, as authorization names them.
const (
	VerbGet    = "get"
	VerbList   = "list"
	VerbWatch  = "watch"
	VerbCreate = "create"
	VerbUpdate = "update"
	VerbPatch  = "patch"
	VerbDelete = "delete"
)

// QualifiedResource is the resource as kubectl names it: "deployments.apps",
// "configmaps"; the kind when the resource is not known.
func (a Access) QualifiedResource() string {
	r, group := a.Resource, a.Group
	if r == "" {
		r, group = a.Kind, groupOfAPIVersion(a.APIVersion)
	}
	if group == "" {
		return r
	}
	return r + "." + group
}

// String reads "create deployments.apps in namespace web", or "create
// namespaces (cluster-wide)" (cluster-scoped resources, and namespaced ones in
// every namespace).
func (a Access) String() string {
	if a.Namespace == "" {
		return fmt.Sprintf("%s %s (cluster-wide)", a.Verb, a.QualifiedResource())
	}
	return fmt.Sprintf("%s %s in namespace %s", a.Verb, a.QualifiedResource(), a.Namespace)
}

func groupOfAPIVersion(apiVersion string) string {
	return Object{"apiVersion": apiVersion}.Group()
}

// verbOrder sorts verbs as an operation uses them.
var verbOrder = []string{VerbGet, VerbList, VerbWatch, VerbCreate, VerbPatch, VerbUpdate, VerbDelete}

// SortAccess sorts permissions by namespace, resource and verb, and drops
// duplicates.
func SortAccess(as []Access) []Access {
	out := slices.Clone(as)
	slices.SortFunc(out, func(a, b Access) int {
		return cmp.Or(
			cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.QualifiedResource(), b.QualifiedResource()),
			cmp.Compare(verbRank(a.Verb), verbRank(b.Verb)),
			cmp.Compare(a.Verb, b.Verb),
		)
	})
	return slices.CompactFunc(out, func(a, b Access) bool {
		return a.Verb == b.Verb && a.Namespace == b.Namespace && a.QualifiedResource() == b.QualifiedResource()
	})
}

func verbRank(v string) int {
	if i := slices.Index(verbOrder, v); i >= 0 {
		return i
	}
	return len(verbOrder)
}

// ClusterBacked is an adapter that keeps its state in objects of the cluster:
// a release store in Secrets or ConfigMaps, a lock in Leases. An operation's
// preflight checks that the caller may use them too.
type ClusterBacked interface {
	// BackingResource names the resource of its objects (group "", resource
	// "secrets"); ok is false when it keeps nothing in the cluster.
	BackingResource() (group, resource string, ok bool)
}
