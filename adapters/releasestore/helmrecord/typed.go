package helmrecord

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// TypedClient is what client-go's typed client of one kind in one namespace
// offers (corev1.SecretInterface, corev1.ConfigMapInterface): T is the
// object, L its list.
type TypedClient[T, L any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error)
	List(ctx context.Context, opts metav1.ListOptions) (*L, error)
	Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error)
	Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Typed is Objects over the cluster objects of one kind, given how a record
// sits in such an object. PT is *T, which carries the object's metadata.
type Typed[T, L any, PT interface {
	*T
	metav1.Object
}] struct {
	// KindName names the objects in errors, e.g. "secret".
	KindName string
	// GVR is the objects' resource, for preflights and metadata lists.
	GVR schema.GroupVersionResource
	// Client returns the typed client of a namespace ("" for all).
	Client func(namespace string) TypedClient[T, L]
	// Items returns a list's objects.
	Items func(*L) []T
	// Decode and Encode move a record out of and into an object.
	Decode func(PT) *Object
	Encode func(*Object) PT
}

// Kind names the objects in errors.
func (t Typed[T, L, PT]) Kind() string { return t.KindName }

// Resource names the records' resource, for the preflight of operations.
func (t Typed[T, L, PT]) Resource() (group, resource string) { return t.GVR.Group, t.GVR.Resource }

// Get reads one object.
func (t Typed[T, L, PT]) Get(ctx context.Context, namespace, name string) (*Object, error) {
	obj, err := t.Client(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, APIError(err)
	}
	return t.Decode(obj), nil
}

// List reads the objects of namespace ("" for all) matching selector.
func (t Typed[T, L, PT]) List(ctx context.Context, namespace, selector string) ([]*Object, error) {
	list, err := t.Client(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, APIError(err)
	}
	items := t.Items(list)
	out := make([]*Object, len(items))
	for i := range items {
		out[i] = t.Decode(&items[i])
	}
	return out, nil
}

// Create writes a new object and sets o.ResourceVersion to the written one's.
func (t Typed[T, L, PT]) Create(ctx context.Context, o *Object) error {
	out, err := t.Client(o.Namespace).Create(ctx, t.Encode(o), metav1.CreateOptions{})
	if err != nil {
		return APIError(err)
	}
	o.ResourceVersion = PT(out).GetResourceVersion()
	return nil
}

// Update replaces an object (o.ResourceVersion guards it) and sets
// o.ResourceVersion to the written one's.
func (t Typed[T, L, PT]) Update(ctx context.Context, o *Object) error {
	out, err := t.Client(o.Namespace).Update(ctx, t.Encode(o), metav1.UpdateOptions{})
	if err != nil {
		return APIError(err)
	}
	o.ResourceVersion = PT(out).GetResourceVersion()
	return nil
}

// Delete removes one object.
func (t Typed[T, L, PT]) Delete(ctx context.Context, namespace, name string) error {
	return APIError(t.Client(namespace).Delete(ctx, name, metav1.DeleteOptions{}))
}

// WithMetadata is Objects that lists through Kubernetes' metadata API:
// labels and annotations only, not every record's payload.
type WithMetadata[T, L any, PT interface {
	*T
	metav1.Object
}] struct {
	Typed[T, L, PT]
	Meta metadata.Interface
}

// ListMetadata lists the records' objects without their payloads.
func (w WithMetadata[T, L, PT]) ListMetadata(ctx context.Context, namespace, selector string) ([]*Object, error) {
	return ListMetadata(ctx, w.Meta, w.GVR, namespace, selector)
}
