// Package configmap stores releases in ConfigMaps, in Helm 3's format (Helm's
// --storage configmap driver). The format, and how kubectl-chart extends it for
// records over Kubernetes' object limit, is described in package helmrecord.
package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
)

// New returns a release store over the cluster's ConfigMaps.
func New(client kubernetes.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(objects{client}, opts...)
}

// NewWithMetadata is New, listing through Kubernetes' metadata API: `list`
// then transfers labels and annotations only, not every record's payload.
func NewWithMetadata(client kubernetes.Interface, meta metadata.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(metaObjects{objects{client}, meta}, opts...)
}

type objects struct{ client kubernetes.Interface }

var configMapsResource = corev1.SchemeGroupVersion.WithResource("configmaps")

type metaObjects struct {
	objects
	meta metadata.Interface
}

func (c metaObjects) ListMetadata(ctx context.Context, namespace, selector string) ([]*helmrecord.Object, error) {
	return helmrecord.ListMetadata(ctx, c.meta, configMapsResource, namespace, selector)
}

func (objects) Kind() string { return "configmap" }

// Resource names the records' resource, for the preflight of operations.
func (objects) Resource() (group, resource string) { return "", "configmaps" }

func fromConfigMap(c *corev1.ConfigMap) *helmrecord.Object {
	o := &helmrecord.Object{
		Namespace: c.Namespace, Name: c.Name, Labels: c.Labels, Annotations: c.Annotations,
		ResourceVersion: c.ResourceVersion,
	}
	if d, ok := c.Data["chunk"]; ok {
		o.Chunk, o.Data = true, d
	} else {
		o.Data = c.Data["release"]
	}
	return o
}

func toConfigMap(o *helmrecord.Object) *corev1.ConfigMap {
	key := "release"
	if o.Chunk {
		key = "chunk"
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, Namespace: o.Namespace, Labels: o.Labels, Annotations: o.Annotations,
			ResourceVersion: o.ResourceVersion,
		},
		Data: map[string]string{key: o.Data},
	}
}

func (c objects) Get(ctx context.Context, namespace, name string) (*helmrecord.Object, error) {
	cm, err := c.client.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, helmrecord.APIError(err)
	}
	return fromConfigMap(cm), nil
}

func (c objects) List(ctx context.Context, namespace, selector string) ([]*helmrecord.Object, error) {
	list, err := c.client.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, helmrecord.APIError(err)
	}
	out := make([]*helmrecord.Object, len(list.Items))
	for i := range list.Items {
		out[i] = fromConfigMap(&list.Items[i])
	}
	return out, nil
}

func (c objects) Create(ctx context.Context, o *helmrecord.Object) error {
	out, err := c.client.CoreV1().ConfigMaps(o.Namespace).Create(ctx, toConfigMap(o), metav1.CreateOptions{})
	if err != nil {
		return helmrecord.APIError(err)
	}
	o.ResourceVersion = out.ResourceVersion
	return nil
}

func (c objects) Update(ctx context.Context, o *helmrecord.Object) error {
	out, err := c.client.CoreV1().ConfigMaps(o.Namespace).Update(ctx, toConfigMap(o), metav1.UpdateOptions{})
	if err != nil {
		return helmrecord.APIError(err)
	}
	o.ResourceVersion = out.ResourceVersion
	return nil
}

func (c objects) Delete(ctx context.Context, namespace, name string) error {
	return helmrecord.APIError(c.client.CoreV1().ConfigMaps(namespace).Delete(ctx, name, metav1.DeleteOptions{}))
}
