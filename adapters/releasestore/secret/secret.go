// Package secret stores releases in Secrets, in Helm 3's format (the default
// store, as in Helm). The format, and how kubectl-chart extends it for records
// over Kubernetes' object limit, is described in package helmrecord.
package secret

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
)

// Secret types of a release's head object (Helm's) and of its chunks (ours).
const (
	ReleaseType = corev1.SecretType("helm.sh/release.v1")
	ChunkType   = corev1.SecretType("kubectl-chart.dev/release-chunk.v1")
)

// New returns a release store over the cluster's Secrets.
func New(client kubernetes.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(objects{client}, opts...)
}

// NewWithMetadata is New, listing through Kubernetes' metadata API: `list`
// then transfers labels and annotations only, not every record's payload.
func NewWithMetadata(client kubernetes.Interface, meta metadata.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(metaObjects{objects{client}, meta}, opts...)
}

type objects struct{ client kubernetes.Interface }

var secretsResource = corev1.SchemeGroupVersion.WithResource("secrets")

type metaObjects struct {
	objects
	meta metadata.Interface
}

func (c metaObjects) ListMetadata(ctx context.Context, namespace, selector string) ([]*helmrecord.Object, error) {
	return helmrecord.ListMetadata(ctx, c.meta, secretsResource, namespace, selector)
}

func (objects) Kind() string { return "secret" }

// Resource names the records' resource, for the preflight of operations.
func (objects) Resource() (group, resource string) { return "", "secrets" }

func fromSecret(s *corev1.Secret) *helmrecord.Object {
	o := &helmrecord.Object{
		Namespace: s.Namespace, Name: s.Name, Labels: s.Labels, Annotations: s.Annotations,
		ResourceVersion: s.ResourceVersion, Chunk: s.Type == ChunkType,
	}
	if o.Chunk {
		o.Data = string(s.Data["chunk"])
	} else {
		o.Data = string(s.Data["release"])
	}
	return o
}

func toSecret(o *helmrecord.Object) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, Namespace: o.Namespace, Labels: o.Labels, Annotations: o.Annotations,
			ResourceVersion: o.ResourceVersion,
		},
		Type: ReleaseType,
		Data: map[string][]byte{"release": []byte(o.Data)},
	}
	if o.Chunk {
		s.Type = ChunkType
		s.Data = map[string][]byte{"chunk": []byte(o.Data)}
	}
	return s
}

func (c objects) Get(ctx context.Context, namespace, name string) (*helmrecord.Object, error) {
	s, err := c.client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, helmrecord.APIError(err)
	}
	return fromSecret(s), nil
}

func (c objects) List(ctx context.Context, namespace, selector string) ([]*helmrecord.Object, error) {
	list, err := c.client.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, helmrecord.APIError(err)
	}
	out := make([]*helmrecord.Object, len(list.Items))
	for i := range list.Items {
		out[i] = fromSecret(&list.Items[i])
	}
	return out, nil
}

func (c objects) Create(ctx context.Context, o *helmrecord.Object) error {
	out, err := c.client.CoreV1().Secrets(o.Namespace).Create(ctx, toSecret(o), metav1.CreateOptions{})
	if err != nil {
		return helmrecord.APIError(err)
	}
	o.ResourceVersion = out.ResourceVersion
	return nil
}

func (c objects) Update(ctx context.Context, o *helmrecord.Object) error {
	out, err := c.client.CoreV1().Secrets(o.Namespace).Update(ctx, toSecret(o), metav1.UpdateOptions{})
	if err != nil {
		return helmrecord.APIError(err)
	}
	o.ResourceVersion = out.ResourceVersion
	return nil
}

func (c objects) Delete(ctx context.Context, namespace, name string) error {
	return helmrecord.APIError(c.client.CoreV1().Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{}))
}
