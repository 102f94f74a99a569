// Package configmap stores releases in ConfigMaps, in Helm 3's format (Helm's
// --storage configmap driver). The format, and how kubectl-chart extends it for
// records over Kubernetes' object limit, is described in package helmrecord.
package configmap

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
)

type objects = helmrecord.Typed[corev1.ConfigMap, corev1.ConfigMapList, *corev1.ConfigMap]

// New returns a release store over the cluster's ConfigMaps.
func New(client kubernetes.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(configMaps(client), opts...)
}

// NewWithMetadata is New, listing through Kubernetes' metadata API: `list`
// then transfers labels and annotations only, not every record's payload.
func NewWithMetadata(client kubernetes.Interface, meta metadata.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(helmrecord.WithMetadata[corev1.ConfigMap, corev1.ConfigMapList, *corev1.ConfigMap]{Typed: configMaps(client), Meta: meta}, opts...)
}

func configMaps(client kubernetes.Interface) objects {
	return objects{
		KindName: "configmap",
		GVR:      corev1.SchemeGroupVersion.WithResource("configmaps"),
		Client: func(namespace string) helmrecord.TypedClient[corev1.ConfigMap, corev1.ConfigMapList] {
			return client.CoreV1().ConfigMaps(namespace)
		},
		Items:  func(l *corev1.ConfigMapList) []corev1.ConfigMap { return l.Items },
		Decode: fromConfigMap,
		Encode: toConfigMap,
	}
}

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
