package lint

// apiLifecycle records when an API version of a kind was deprecated and removed, and
// what replaces it. Versions are Kubernetes minor releases of major version 1.
type apiLifecycle struct {
	deprecated, removed int
	replacement         string
}

// lifecycles lists the built-in APIs Kubernetes has deprecated or removed, keyed by
// "apiVersion kind". Like Helm, it covers client-go's built-in kinds only (not
// CustomResourceDefinition or APIService), so lint --strict passes and fails as Helm's does.
var lifecycles = map[string]apiLifecycle{
	"extensions/v1beta1 Ingress":                                          {14, 22, "networking.k8s.io/v1 Ingress"},
	"networking.k8s.io/v1beta1 Ingress":                                   {19, 22, "networking.k8s.io/v1 Ingress"},
	"networking.k8s.io/v1beta1 IngressClass":                              {19, 22, "networking.k8s.io/v1 IngressClass"},
	"extensions/v1beta1 Deployment":                                       {9, 16, "apps/v1 Deployment"},
	"extensions/v1beta1 DaemonSet":                                        {9, 16, "apps/v1 DaemonSet"},
	"extensions/v1beta1 ReplicaSet":                                       {9, 16, "apps/v1 ReplicaSet"},
	"extensions/v1beta1 NetworkPolicy":                                    {9, 16, "networking.k8s.io/v1 NetworkPolicy"},
	"extensions/v1beta1 PodSecurityPolicy":                                {10, 16, "policy/v1beta1 PodSecurityPolicy"},
	"apps/v1beta1 Deployment":                                             {9, 16, "apps/v1 Deployment"},
	"apps/v1beta1 StatefulSet":                                            {9, 16, "apps/v1 StatefulSet"},
	"apps/v1beta1 ControllerRevision":                                     {9, 16, "apps/v1 ControllerRevision"},
	"apps/v1beta2 Deployment":                                             {9, 16, "apps/v1 Deployment"},
	"apps/v1beta2 StatefulSet":                                            {9, 16, "apps/v1 StatefulSet"},
	"apps/v1beta2 DaemonSet":                                              {9, 16, "apps/v1 DaemonSet"},
	"apps/v1beta2 ReplicaSet":                                             {9, 16, "apps/v1 ReplicaSet"},
	"apps/v1beta2 ControllerRevision":                                     {9, 16, "apps/v1 ControllerRevision"},
	"policy/v1beta1 PodSecurityPolicy":                                    {21, 25, ""},
	"policy/v1beta1 PodDisruptionBudget":                                  {21, 25, "policy/v1 PodDisruptionBudget"},
	"batch/v1beta1 CronJob":                                               {21, 25, "batch/v1 CronJob"},
	"batch/v2alpha1 CronJob":                                              {8, 21, "batch/v1 CronJob"},
	"autoscaling/v2beta1 HorizontalPodAutoscaler":                         {22, 25, "autoscaling/v2 HorizontalPodAutoscaler"},
	"autoscaling/v2beta2 HorizontalPodAutoscaler":                         {23, 26, "autoscaling/v2 HorizontalPodAutoscaler"},
	"rbac.authorization.k8s.io/v1beta1 Role":                              {17, 22, "rbac.authorization.k8s.io/v1 Role"},
	"rbac.authorization.k8s.io/v1beta1 RoleBinding":                       {17, 22, "rbac.authorization.k8s.io/v1 RoleBinding"},
	"rbac.authorization.k8s.io/v1beta1 ClusterRole":                       {17, 22, "rbac.authorization.k8s.io/v1 ClusterRole"},
	"rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding":                {17, 22, "rbac.authorization.k8s.io/v1 ClusterRoleBinding"},
	"admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration":   {16, 22, "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration"},
	"admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration": {16, 22, "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration"},
	"scheduling.k8s.io/v1beta1 PriorityClass":                             {14, 22, "scheduling.k8s.io/v1 PriorityClass"},
	"coordination.k8s.io/v1beta1 Lease":                                   {14, 22, "coordination.k8s.io/v1 Lease"},
	"certificates.k8s.io/v1beta1 CertificateSigningRequest":               {19, 22, "certificates.k8s.io/v1 CertificateSigningRequest"},
	"storage.k8s.io/v1beta1 StorageClass":                                 {19, 22, "storage.k8s.io/v1 StorageClass"},
	"storage.k8s.io/v1beta1 VolumeAttachment":                             {19, 22, "storage.k8s.io/v1 VolumeAttachment"},
	"storage.k8s.io/v1beta1 CSIDriver":                                    {19, 22, "storage.k8s.io/v1 CSIDriver"},
	"storage.k8s.io/v1beta1 CSINode":                                      {17, 22, "storage.k8s.io/v1 CSINode"},
	"storage.k8s.io/v1beta1 CSIStorageCapacity":                           {24, 27, "storage.k8s.io/v1 CSIStorageCapacity"},
	"discovery.k8s.io/v1beta1 EndpointSlice":                              {21, 25, "discovery.k8s.io/v1 EndpointSlice"},
	"events.k8s.io/v1beta1 Event":                                         {19, 25, "events.k8s.io/v1 Event"},
	"node.k8s.io/v1beta1 RuntimeClass":                                    {20, 25, "node.k8s.io/v1 RuntimeClass"},
	"flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema":                     {23, 26, "flowcontrol.apiserver.k8s.io/v1 FlowSchema"},
	"flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration":     {23, 26, "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration"},
	"flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema":                     {26, 29, "flowcontrol.apiserver.k8s.io/v1 FlowSchema"},
	"flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration":     {26, 29, "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration"},
	"flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema":                     {29, 32, "flowcontrol.apiserver.k8s.io/v1 FlowSchema"},
	"flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration":     {29, 32, "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration"},
}
