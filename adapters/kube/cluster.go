// Package kube implements ports.Cluster on a live API server: server-side apply,
// deletion, discovery for .Capabilities, and readiness watched through the API.
package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Cluster is a live cluster reached through a REST config.
type Cluster struct {
	dynamic   dynamic.Interface
	discovery discovery.CachedDiscoveryInterface
	mapper    *restmapper.DeferredDiscoveryRESTMapper
	core      corev1client.CoreV1Interface
	authz     authzclient.AuthorizationV1Interface

	capsMu sync.Mutex
	caps   *capabilities.Capabilities

	// access caches what access reviews answered (see access.go).
	access accessCache
}

var _ ports.Cluster = (*Cluster)(nil)

// New connects to the cluster of cfg. It raises client-side rate limits
// (WithOwnRate): a release applies hundreds of objects and the API server's
// own priority and fairness protects it.
func New(cfg *rest.Config) (*Cluster, error) {
	cfg = WithOwnRate(cfg, 200, 400)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create dynamic client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create discovery client: %w", err)
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create core client: %w", err)
	}
	authz, err := authzclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create authorization client: %w", err)
	}
	cached := memory.NewMemCacheClient(dc)
	return &Cluster{
		dynamic: dyn, discovery: cached, core: core, authz: authz,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(cached),
	}, nil
}

// Dynamic is the cluster's dynamic client, for adapters built beside it.
func (c *Cluster) Dynamic() dynamic.Interface { return c.dynamic }

// mapping finds the resource of a kind, refreshing discovery once when the kind
// is unknown (it may have been created since the cache was filled).
func (c *Cluster) mapping(apiVersion, kind string) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	m, err := c.mapper.RESTMapping(gk, gv.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gk, gv.Version)
	}
	if meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("resource mapping not found for kind %q in version %q: %w", kind, apiVersion, ports.ErrUnknownKind)
	}
	if err != nil {
		return nil, fmt.Errorf("map kind %s %s: %w", apiVersion, kind, err)
	}
	return m, nil
}

func (c *Cluster) resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dynamic.Resource(m.Resource).Namespace(namespace)
	}
	return c.dynamic.Resource(m.Resource)
}

// Capabilities reads the server version and the served API versions once.
func (c *Cluster) Capabilities(_ context.Context) (*capabilities.Capabilities, error) {
	c.capsMu.Lock()
	defer c.capsMu.Unlock()
	if c.caps == nil {
		caps, err := c.readCapabilities()
		if err != nil {
			return nil, err
		}
		c.caps = caps
	}
	return c.caps, nil
}

func (c *Cluster) readCapabilities() (*capabilities.Capabilities, error) {
	info, err := c.discovery.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("read the server version: %w", err)
	}
	kv, err := capabilities.ServerKubeVersion(info.GitVersion, info.Major, info.Minor)
	if err != nil {
		return nil, fmt.Errorf("server version %q: %w", info.GitVersion, err)
	}
	_, lists, err := c.discovery.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discover the server's API versions: %w", err)
	}
	caps := capabilities.Default("")
	caps.KubeVersion = *kv
	var versions capabilities.VersionSet
	seen := map[string]bool{}
	for _, l := range lists {
		if !seen[l.GroupVersion] {
			seen[l.GroupVersion] = true
			versions = append(versions, l.GroupVersion)
		}
		for _, r := range l.APIResources {
			if r.Kind == "" {
				continue
			}
			v := l.GroupVersion + "/" + r.Kind
			if !seen[v] {
				seen[v] = true
				versions = append(versions, v)
			}
		}
	}
	caps.APIVersions = versions
	return caps, nil
}

// Namespaced reports whether a kind is namespaced.
func (c *Cluster) Namespaced(_ context.Context, apiVersion, kind string) (bool, error) {
	m, err := c.mapping(apiVersion, kind)
	if err != nil {
		return false, err
	}
	return m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// Apply server-side applies obj as opts' field manager.
func (c *Cluster) Apply(ctx context.Context, o ports.Object, opts ports.ApplyOptions) (ports.Object, error) {
	ref := ports.RefOf(o)
	obj := &unstructured.Unstructured{Object: o}
	m, err := c.mapping(obj.GetAPIVersion(), obj.GetKind())
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", ref, err)
	}
	ao := metav1.ApplyOptions{FieldManager: opts.Manager(), Force: opts.ForceConflicts}
	if opts.DryRun {
		ao.DryRun = []string{metav1.DryRunAll}
	}
	ri := c.resource(m, obj.GetNamespace())
	out, err := ri.Apply(ctx, obj.GetName(), obj, ao)
	if ce := conflictError(ref, err); ce != nil && !ao.Force && takesOver(ce, opts.TakeOverFrom) {
		ao.Force = true
		out, err = ri.Apply(ctx, obj.GetName(), obj, ao)
	}
	if err != nil {
		return nil, applyError(ref, err, ao.Force)
	}
	if !opts.DryRun {
		if out, err = c.takeOver(ctx, ri, obj, out, ao, opts.TakeOverFrom); err != nil {
			return nil, fmt.Errorf("apply %s: %w", ref, err)
		}
	}
	return ports.Object(out.Object), nil
}

// takeOver moves the fields that managers in from wrote (Helm's client-side
// updates, Helm 4's applies, our earlier field manager's) to the apply's
// manager and applies again, so that fields the chart no longer sets are
// removed rather than kept by the previous writer, as kubectl does when
// moving to server-side apply.
func (c *Cluster) takeOver(ctx context.Context, ri dynamic.ResourceInterface, obj, live *unstructured.Unstructured, ao metav1.ApplyOptions, from []string) (*unstructured.Unstructured, error) {
	if !heldBy(live, from, ao.FieldManager) {
		return live, nil
	}
	// The patch tests the resourceVersion it was computed from, and
	// controllers write status concurrently: recompute from a fresh read on
	// conflict, as kubectl's own migration does.
	err := retry.RetryOnConflict(takeOverBackoff, func() error {
		patch, err := takeOverPatch(live, from, ao.FieldManager)
		if err != nil || patch == nil {
			return err
		}
		_, err = ri.Patch(ctx, obj.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{})
		if !apierrors.IsConflict(err) && !apierrors.IsInvalid(err) {
			return err
		}
		fresh, getErr := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		live = fresh
		if !heldBy(live, from, ao.FieldManager) {
			return nil
		}
		return apierrors.NewConflict(schema.GroupResource{}, obj.GetName(), err)
	})
	if err != nil {
		return nil, fmt.Errorf("take over fields of %v: %w", from, err)
	}
	ao.Force = true
	return ri.Apply(ctx, obj.GetName(), obj, ao)
}

// Create creates obj as fieldManager; the server refuses an object that exists.
func (c *Cluster) Create(ctx context.Context, o ports.Object, fieldManager string) (ports.Object, error) {
	ref := ports.RefOf(o)
	obj := &unstructured.Unstructured{Object: o}
	m, err := c.mapping(obj.GetAPIVersion(), obj.GetKind())
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", ref, err)
	}
	out, err := c.resource(m, obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{FieldManager: ports.FieldManagerOr(fieldManager)})
	if err != nil {
		return nil, createError(ref, err)
	}
	return ports.Object(out.Object), nil
}

// Replace updates the live object with obj whole, at the live object's
// resource version (kubectl replace's overwrite).
func (c *Cluster) Replace(ctx context.Context, o ports.Object, fieldManager string) (ports.Object, error) {
	ref := ports.RefOf(o)
	obj := &unstructured.Unstructured{Object: o}
	m, err := c.mapping(obj.GetAPIVersion(), obj.GetKind())
	if err != nil {
		return nil, fmt.Errorf("replace %s: %w", ref, err)
	}
	ri := c.resource(m, obj.GetNamespace())
	obj = obj.DeepCopy()
	var out *unstructured.Unstructured
	var readErr error
	// The object is written whole over what is there now: a controller that
	// wrote it (a Deployment's status) between the read and the write is a
	// conflict to read again for, not a refusal.
	err = retry.RetryOnConflict(takeOverBackoff, func() error {
		live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			readErr = fmt.Errorf("replace %s: %w", ref, ports.ErrObjectNotFound)
			return nil
		case err != nil:
			readErr = fmt.Errorf("replace %s: %w", ref, err)
			return nil
		}
		obj.SetResourceVersion(live.GetResourceVersion())
		out, err = ri.Update(ctx, obj, metav1.UpdateOptions{FieldManager: ports.FieldManagerOr(fieldManager)})
		return err
	})
	switch {
	case readErr != nil:
		return nil, readErr
	case err != nil:
		return nil, applyError(ref, err, true)
	}
	return ports.Object(out.Object), nil
}

// Get reads one object.
func (c *Cluster) Get(ctx context.Context, ref ports.ObjectRef) (ports.Object, error) {
	m, err := c.mapping(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ref, err)
	}
	out, err := c.resource(m, ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("get %s: %w", ref, ports.ErrObjectNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ref, err)
	}
	return ports.Object(out.Object), nil
}

// List reads objects of one kind.
func (c *Cluster) List(ctx context.Context, apiVersion, kind, namespace, selector string) ([]ports.Object, error) {
	m, err := c.mapping(apiVersion, kind)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", kind, err)
	}
	l, err := c.list(ctx, m, namespace, selector)
	if err != nil {
		return nil, err
	}
	out := make([]ports.Object, len(l.Items))
	for i := range l.Items {
		out[i] = ports.Object(l.Items[i].Object)
	}
	return out, nil
}

// Delete deletes one object with a propagation policy.
func (c *Cluster) Delete(ctx context.Context, ref ports.ObjectRef, propagation ports.Propagation) error {
	m, err := c.mapping(ref.APIVersion, ref.Kind)
	if err != nil {
		return fmt.Errorf("delete %s: %w", ref, err)
	}
	opts := metav1.DeleteOptions{}
	if propagation != "" {
		p := metav1.DeletionPropagation(strings.ToUpper(string(propagation[:1])) + string(propagation[1:]))
		opts.PropagationPolicy = &p
	}
	err = c.resource(m, ref.Namespace).Delete(ctx, ref.Name, opts)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", ref, ports.ErrObjectNotFound)
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", ref, err)
	}
	return nil
}

// InstallCRDs creates missing CRDs as fieldManager, waits for them to be
// established and refreshes discovery.
func (c *Cluster) InstallCRDs(ctx context.Context, crds []ports.Object, fieldManager string) error {
	if len(crds) == 0 {
		return nil
	}
	m, err := c.mapping("apiextensions.k8s.io/v1", "CustomResourceDefinition")
	if err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	ri := c.dynamic.Resource(m.Resource)
	refs := make([]ports.ObjectRef, 0, len(crds))
	for _, crd := range crds {
		_, err := ri.Create(ctx, &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{FieldManager: ports.FieldManagerOr(fieldManager)})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CustomResourceDefinition %s: %w", crd.GetName(), err)
		}
		refs = append(refs, ports.RefOf(crd))
	}
	// Existing CRDs too: another operation may have just created them.
	if err := c.WaitReady(ctx, refs, ports.WaitOptions{}); err != nil {
		return fmt.Errorf("wait for CRDs to be established: %w", err)
	}
	c.capsMu.Lock()
	c.caps = nil
	c.capsMu.Unlock()
	// An existing CRD may have been upgraded: what discovery knew is stale.
	c.discovery.Invalidate()
	c.mapper.Reset()
	// Established means served; discovery can lag a moment behind.
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd, "spec", "names", "kind")
		versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
		if kind == "" {
			continue
		}
		gk := schema.GroupKind{Group: group, Kind: kind}
		for _, raw := range versions {
			v, ok := raw.(map[string]any)
			version, _ := v["name"].(string)
			if !ok || v["served"] != true || version == "" {
				continue
			}
			// Bounded: a kind that stays undiscoverable fails later, naming itself.
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := c.mapper.RESTMapping(gk, version); err == nil {
					break
				}
				c.discovery.Invalidate()
				c.mapper.Reset()
				select {
				case <-ctx.Done():
					return fmt.Errorf("wait for %s to be discoverable: %w", crd.GetName(), ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}
	return nil
}

// PodLogs copies the logs of one container of a pod (of every container
// when container is "") to w.
func (c *Cluster) PodLogs(ctx context.Context, namespace, pod, container string, w io.Writer) error {
	names := []string{container}
	if container == "" {
		p, err := c.core.Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("get pod %s/%s: %w", namespace, pod, ports.ErrObjectNotFound)
		}
		if err != nil {
			return fmt.Errorf("get pod %s/%s: %w", namespace, pod, err)
		}
		names = names[:0]
		for _, ctr := range p.Spec.Containers {
			names = append(names, ctr.Name)
		}
	}
	var errs []error
	for _, name := range names {
		rc, err := c.core.Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: name}).Stream(ctx)
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("logs of pod %s/%s: %w", namespace, pod, ports.ErrObjectNotFound)
		}
		if err != nil && container != "" {
			return err // the caller names the pod and the container
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("logs of pod %s/%s container %s: %w", namespace, pod, name, err))
			continue
		}
		_, err = io.Copy(w, rc)
		_ = rc.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("read logs of pod %s/%s: %w", namespace, pod, err))
		}
	}
	return errors.Join(errs...)
}

// WithOwnRate gives a copy of cfg a client's own rate limit, qps with burst,
// when cfg sets no rate (the user gave no --qps): the burst then rises to
// burst, a burst cfg holds (--burst-limit, Helm's 100 by default, is paired
// with client-go's 5 requests a second) only ever raising it. A rate cfg sets
// is kept with its burst (0: burst).
func WithOwnRate(cfg *rest.Config, qps float32, burst int) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = qps, max(cfg.Burst, burst)
	}
	if cfg.Burst == 0 {
		cfg.Burst = burst
	}
	return cfg
}
