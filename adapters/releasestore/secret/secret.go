// Package secret stores releases in Secrets, in Helm 3's format (the default
// store, as in Helm). The format, and how kubectl-chart extends it for records
// over Kubernetes' object limit, is described in package helmrecord.
package secret

import (
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

type objects = helmrecord.Typed[corev1.Secret, corev1.SecretList, *corev1.Secret]

// New returns a release store over the cluster's Secrets.
func New(client kubernetes.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(secrets(client), opts...)
}

// NewWithMetadata is New, listing through Kubernetes' metadata API: `list`
// then transfers labels and annotations only, not every record's payload.
func NewWithMetadata(client kubernetes.Interface, meta metadata.Interface, opts ...helmrecord.Option) *helmrecord.Store {
	return helmrecord.NewStore(helmrecord.WithMetadata[corev1.Secret, corev1.SecretList, *corev1.Secret]{Typed: secrets(client), Meta: meta}, opts...)
}

func secrets(client kubernetes.Interface) objects {
	return objects{
		KindName: "secret",
		GVR:      corev1.SchemeGroupVersion.WithResource("secrets"),
		Client: func(namespace string) helmrecord.TypedClient[corev1.Secret, corev1.SecretList] {
			return client.CoreV1().Secrets(namespace)
		},
		Items:  func(l *corev1.SecretList) []corev1.Secret { return l.Items },
		Decode: fromSecret,
		Encode: toSecret,
	}
}

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
