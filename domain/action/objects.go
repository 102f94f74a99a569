package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Ownership metadata: Helm and kubectl-chart recognise a release's objects by it,
// so that each adopts the other's objects.
const (
	ManagedByLabel             = "app.kubernetes.io/managed-by"
	ManagedByValue             = "Helm"
	ReleaseNameAnnotation      = "meta.helm.sh/release-name"
	ReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
	// ResourcePolicyAnnotation "keep" leaves an object in place when the release
	// stops rendering it or is uninstalled.
	ResourcePolicyAnnotation = "helm.sh/resource-policy"
	keepPolicy               = "keep"
)

// scopes answers whether kinds are namespaced: from the cluster, or from CRDs a
// plan installs first (their kinds are not served yet when planning).
type scopes struct {
	cluster ports.Cluster
	// planned maps group/kind of CRDs to be installed to whether they are namespaced.
	planned map[string]bool
}

func (s scopes) namespaced(ctx context.Context, apiVersion, kind string) (bool, error) {
	namespaced, err := s.cluster.Namespaced(ctx, apiVersion, kind)
	if errors.Is(err, ports.ErrUnknownKind) {
		if n, ok := s.planned[groupOf(apiVersion)+"/"+kind]; ok {
			return n, nil
		}
	}
	return namespaced, err
}

func groupOf(apiVersion string) string {
	return ports.Object{"apiVersion": apiVersion}.Group()
}

// unservedKinds says what objectsOf does with objects of kinds the cluster
// does not serve.
type unservedKinds int

const (
	// unservedFail fails, naming the object.
	unservedFail unservedKinds = iota
	// unservedSkip leaves them out: none of them can exist (their CRD was
	// deleted, or the cluster is a new one), which is all deleting needs.
	unservedSkip
	// unservedKeep keeps them (in ns when they name no namespace), for a
	// preview to show that their kind is not served.
	unservedKeep
)

// objectsOf parses a manifest into objects, puts namespaced objects without a
// namespace into ns and, with owner set, marks them as the release's.
// Annotations the API server refuses (helm.sh/depends-on/resource-groups) are
// removed.
func (s scopes) objectsOf(ctx context.Context, text, ns string, owner *release.Release, unserved unservedKinds) ([]ports.Object, error) {
	src, err := s.sourcedObjectsOf(ctx, text, ns, owner, unserved)
	if err != nil {
		return nil, err
	}
	objs := make([]ports.Object, len(src))
	for i, o := range src {
		objs[i] = o.obj
	}
	return objs, nil
}

// sourced is an object of a manifest with the template it came from and its
// annotations as rendered.
type sourced struct {
	obj         ports.Object
	source      string
	annotations map[string]string
}

// sourcedObjectsOf is objectsOf keeping each object's source and annotations.
func (s scopes) sourcedObjectsOf(ctx context.Context, text, ns string, owner *release.Release, unserved unservedKinds) ([]sourced, error) {
	parsed, err := parseSourced(text)
	if err != nil {
		return nil, err
	}
	objs := parsed[:0]
	for _, so := range parsed {
		o := so.obj
		namespaced, err := s.namespaced(ctx, o.GetAPIVersion(), o.GetKind())
		switch {
		case unserved == unservedSkip && errors.Is(err, ports.ErrUnknownKind):
			continue
		case unserved == unservedKeep && errors.Is(err, ports.ErrUnknownKind):
			namespaced, err = true, nil
		}
		if err != nil {
			return nil, fmt.Errorf("object %s %q: %w", o.GetKind(), o.GetName(), err)
		}
		if !namespaced {
			o.SetNamespace("")
		} else if o.GetNamespace() == "" {
			o.SetNamespace(ns)
		}
		so.annotations = o.GetAnnotations()
		stripSequencing(o)
		if owner != nil {
			setOwner(o, owner)
		}
		objs = append(objs, so)
	}
	return objs, nil
}

// parseObjects reads the objects of a multi-document manifest, expanding lists.
func parseObjects(text string) ([]ports.Object, error) {
	src, err := parseSourced(text)
	if err != nil {
		return nil, err
	}
	out := make([]ports.Object, len(src))
	for i, s := range src {
		out[i] = s.obj
	}
	return out, nil
}

// parseSourced reads the objects of a multi-document manifest, expanding
// lists, with the source each document names.
func parseSourced(text string) ([]sourced, error) {
	objs, err := manifest.ParseObjects(text)
	if err != nil {
		return nil, err
	}
	out := make([]sourced, len(objs))
	for i, o := range objs {
		out[i] = sourced{obj: o.Object, source: o.Source}
	}
	return out, nil
}

// objKey identifies an object across API versions, as a release diff needs.
type objKey struct{ group, kind, namespace, name string }

func keyOf(o ports.Object) objKey {
	return objKey{o.Group(), o.GetKind(), o.GetNamespace(), o.GetName()}
}

func keyOfRef(r ports.ObjectRef) objKey {
	return objKey{groupOf(r.APIVersion), r.Kind, r.Namespace, r.Name}
}

// minus returns the objects of a whose key is not in b.
func minus(a, b []ports.Object) []ports.Object {
	in := make(map[objKey]bool, len(b))
	for _, o := range b {
		in[keyOf(o)] = true
	}
	var out []ports.Object
	for _, o := range a {
		if !in[keyOf(o)] {
			out = append(out, o)
		}
	}
	return out
}

func setOwner(o ports.Object, r *release.Release) {
	labels := o.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedByLabel] = ManagedByValue
	o.SetLabels(labels)
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[ReleaseNameAnnotation] = r.Name
	ann[ReleaseNamespaceAnnotation] = r.Namespace
	o.SetAnnotations(ann)
}

// keptByPolicy reports whether an object stays when its release lets it go.
func keptByPolicy(o ports.Object) bool {
	return o.GetAnnotations()[ResourcePolicyAnnotation] == keepPolicy
}
