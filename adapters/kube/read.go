package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// tableAccept asks the API server for its table of an object or a list.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// Reachable asks the API server for its version, as Helm's reachability
// check does (with no request timeout of its own, so errors name the URL
// as Helm's do). A server never reached is retried briefly; the error then
// is the last attempt's, in Helm's words, without the count of attempts.
func (c *Cluster) Reachable(ctx context.Context) error {
	_, err := c.core.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	var ue *url.Error
	var ex *exhaustedError
	if errors.As(err, &ue) && errors.As(ue.Err, &ex) {
		ue.Err = ex.err
	}
	return err
}

// GetTable reads the server's table of one object.
func (c *Cluster) GetTable(ctx context.Context, ref ports.ObjectRef) (ports.Object, error) {
	m, err := c.mapping(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ref, err)
	}
	t, err := c.table(ctx, c.request(m, ref.Namespace).Name(ref.Name))
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("get %s: %w", ref, ports.ErrObjectNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ref, err)
	}
	return t, nil
}

// ListAs reads the objects of one kind as their list or its table.
func (c *Cluster) ListAs(ctx context.Context, apiVersion, kind, namespace, selector string, form ports.Form) (ports.Object, error) {
	m, err := c.mapping(apiVersion, kind)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", kind, err)
	}
	if form == ports.AsTable {
		req := c.request(m, namespace)
		if selector != "" {
			req = req.Param("labelSelector", selector)
		}
		t, err := c.table(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("list %s in %q: %w", m.Resource.Resource, namespace, err)
		}
		return t, nil
	}
	l, err := c.list(ctx, m, namespace, selector)
	if err != nil {
		return nil, err
	}
	return ports.Object(l.UnstructuredContent()), nil
}

// list lists the objects of m in namespace ("" for all) that selector selects.
func (c *Cluster) list(ctx context.Context, m *meta.RESTMapping, namespace, selector string) (*unstructured.UnstructuredList, error) {
	var ri dynamic.ResourceInterface = c.dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace && namespace != "" {
		ri = c.dynamic.Resource(m.Resource).Namespace(namespace)
	}
	l, err := ri.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list %s in %q: %w", m.Resource.Resource, namespace, err)
	}
	return l, nil
}

// request is a GET of the resource of m, in namespace when it is namespaced
// and namespace is not "".
func (c *Cluster) request(m *meta.RESTMapping, namespace string) *rest.Request {
	gv := m.Resource.GroupVersion()
	prefix := "/apis/" + gv.String()
	if gv.Group == "" {
		prefix = "/api/" + gv.Version
	}
	return c.core.RESTClient().Get().AbsPath(prefix).
		NamespaceIfScoped(namespace, m.Scope.Name() == meta.RESTScopeNameNamespace).
		Resource(m.Resource.Resource)
}

// table sends req asking for the server's table.
func (c *Cluster) table(ctx context.Context, req *rest.Request) (ports.Object, error) {
	raw, err := req.SetHeader("Accept", tableAccept).DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	var t ports.Object
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	return t, nil
}
