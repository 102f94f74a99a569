package helmrecord

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// ListMetadata lists the records of one resource (Secrets or ConfigMaps) through
// Kubernetes' metadata API: labels and annotations only, no payloads.
func ListMetadata(ctx context.Context, meta metadata.Interface, resource schema.GroupVersionResource, namespace, selector string) ([]*Object, error) {
	list, err := meta.Resource(resource).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, APIError(err)
	}
	out := make([]*Object, len(list.Items))
	for i := range list.Items {
		m := &list.Items[i]
		out[i] = &Object{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels, Annotations: m.Annotations, ResourceVersion: m.ResourceVersion}
	}
	return out, nil
}
