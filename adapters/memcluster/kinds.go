package memcluster

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// kindInfo is what the cluster knows of one served kind.
type kindInfo struct {
	group, kind string
	// versions are the served versions, the preferred one first.
	versions   []string
	namespaced bool
	// status: writes to the main resource keep the live status (a status
	// subresource), and apply never owns it.
	status bool
	// generation: metadata.generation counts changes outside metadata and
	// status (and of annotations, with generationAnnotations: Deployments
	// copy them to their ReplicaSets).
	generation, generationAnnotations bool
	// keyedLists: lists of objects with distinct names merge by name (built-in
	// kinds: containers, volumes, env ...); custom resources' lists are atomic.
	keyedLists bool
	// immutable are the fields a change of which the server refuses.
	immutable []immutableRule
	// crd names the CustomResourceDefinition serving the kind; "" for built-ins.
	crd string
}

func (k *kindInfo) servesVersion(version string) bool {
	if version == "" {
		return true
	}
	for _, v := range k.versions {
		if v == version {
			return true
		}
	}
	return false
}

// qualified is the kind as the API server names it in messages (Job.batch).
func (k *kindInfo) qualified() string {
	if k.group == "" {
		return k.kind
	}
	return k.kind + "." + k.group
}

// immutableRule is a field the server refuses to change once set. except
// lists sub-fields that may change ("containers[].image": the image of every
// item of the list containers); such rules are reported as Forbidden, the
// others as an Invalid value.
type immutableRule struct {
	field   string
	except  []string
	message string
}

// invalidError is a write the API server refuses as invalid (HTTP 422): it
// reads as the server's message and is ports.ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ports.ErrInvalid }

// invalid is the refusal of an object named name of a qualified kind.
func invalid(qualifiedKind, name string, problems []string) error {
	msg := fmt.Sprintf("%s %q is invalid: %s", qualifiedKind, name, problems[0])
	if len(problems) > 1 {
		msg = fmt.Sprintf("%s %q is invalid: [%s]", qualifiedKind, name, strings.Join(problems, ", "))
	}
	return &invalidError{msg: msg}
}

type groupKind struct{ group, kind string }

// builtinKinds is a fresh table of the kinds every cluster serves (a subset
// of Kubernetes 1.36's).
func builtinKinds() map[groupKind]*kindInfo {
	type flags struct {
		namespaced, status, generation bool
	}
	var (
		ns       = flags{namespaced: true}
		nsStatus = flags{namespaced: true, status: true}
		nsGen    = flags{namespaced: true, status: true, generation: true}
		cl       = flags{}
		clStatus = flags{status: true}
		clGen    = flags{status: true, generation: true}
	)
	selector := immutableRule{field: "spec.selector", message: "field is immutable"}
	table := []struct {
		apiVersions string
		kind        string
		f           flags
		immutable   []immutableRule
	}{
		{"v1", "ConfigMap", ns, nil},
		{"v1", "Secret", ns, nil},
		{"v1", "ServiceAccount", ns, nil},
		{"v1", "Service", nsStatus, []immutableRule{{field: "spec.clusterIP", message: "field is immutable"}}},
		{"v1", "Endpoints", ns, nil},
		{"v1", "Event", ns, nil},
		{"v1", "LimitRange", ns, nil},
		{"v1", "ResourceQuota", nsStatus, nil},
		{"v1", "PersistentVolumeClaim", nsStatus, []immutableRule{{field: "spec", except: []string{"resources", "volumeAttributesClassName", "volumeName"},
			message: "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"}}},
		{"v1", "Pod", nsGen, []immutableRule{{field: "spec",
			except:  []string{"containers[].image", "initContainers[].image", "activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "nodeName"},
			message: "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"}}},
		{"v1", "PodTemplate", ns, nil},
		{"v1", "ReplicationController", nsGen, nil},
		{"v1", "Namespace", clStatus, nil},
		{"v1", "Node", clStatus, nil},
		{"v1", "PersistentVolume", clStatus, nil},
		{"apps/v1", "Deployment", nsGen, []immutableRule{selector}},
		{"apps/v1", "StatefulSet", nsGen, []immutableRule{selector, {field: "spec",
			except:  []string{"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "minReadySeconds"},
			message: "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"}}},
		{"apps/v1", "DaemonSet", nsGen, []immutableRule{selector}},
		{"apps/v1", "ReplicaSet", nsGen, []immutableRule{selector}},
		{"apps/v1", "ControllerRevision", ns, nil},
		{"batch/v1", "Job", nsGen, []immutableRule{selector, {field: "spec.template", message: "field is immutable"}, {field: "spec.completionMode", message: "field is immutable"}}},
		{"batch/v1", "CronJob", nsGen, nil},
		{"autoscaling/v2,v1", "HorizontalPodAutoscaler", nsStatus, nil},
		{"policy/v1", "PodDisruptionBudget", nsGen, nil},
		{"networking.k8s.io/v1", "Ingress", nsGen, nil},
		{"networking.k8s.io/v1", "NetworkPolicy", flags{namespaced: true, generation: true}, nil},
		{"networking.k8s.io/v1", "IngressClass", cl, nil},
		{"discovery.k8s.io/v1", "EndpointSlice", ns, nil},
		{"coordination.k8s.io/v1", "Lease", ns, nil},
		{"events.k8s.io/v1", "Event", ns, nil},
		{"rbac.authorization.k8s.io/v1", "Role", ns, nil},
		{"rbac.authorization.k8s.io/v1", "RoleBinding", ns, []immutableRule{{field: "roleRef", message: "cannot change roleRef"}}},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", cl, nil},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", cl, []immutableRule{{field: "roleRef", message: "cannot change roleRef"}}},
		{"storage.k8s.io/v1", "StorageClass", cl, []immutableRule{{field: "provisioner", message: "field is immutable"}, {field: "parameters", message: "updates to parameters are forbidden."}}},
		{"storage.k8s.io/v1", "CSIDriver", cl, nil},
		{"scheduling.k8s.io/v1", "PriorityClass", cl, []immutableRule{{field: "value", message: "may not be changed in an update."}}},
		{"node.k8s.io/v1", "RuntimeClass", cl, []immutableRule{{field: "handler", message: "field is immutable"}}},
		{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", flags{generation: true}, nil},
		{"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", flags{generation: true}, nil},
		{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", clGen, nil},
		{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", flags{generation: true}, nil},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", clGen, []immutableRule{{field: "spec.group", message: "field is immutable"}}},
		{"apiregistration.k8s.io/v1", "APIService", clStatus, nil},
		{"certificates.k8s.io/v1", "CertificateSigningRequest", clStatus, nil},
	}
	out := make(map[groupKind]*kindInfo, len(table)+1)
	for _, e := range table {
		group, versions := "", e.apiVersions
		if i := strings.LastIndex(e.apiVersions, "/"); i >= 0 {
			group, versions = e.apiVersions[:i], e.apiVersions[i+1:]
		}
		out[groupKind{group, e.kind}] = &kindInfo{
			group: group, kind: e.kind, versions: strings.Split(versions, ","),
			namespaced: e.f.namespaced, status: e.f.status, generation: e.f.generation,
			keyedLists: true, immutable: e.immutable,
		}
	}
	out[groupKind{"apps", "Deployment"}].generationAnnotations = true
	return out
}

// alwaysReady are kinds that are ready as soon as they exist (they have no
// status a controller fills in): a wait for readiness skips them, as the
// kube adapter's does.
func alwaysReady(kind string) bool {
	switch kind {
	case "ConfigMap", "Secret", "ServiceAccount", "Role", "RoleBinding",
		"ClusterRole", "ClusterRoleBinding", "NetworkPolicy", "LimitRange",
		"ResourceQuota", "PriorityClass", "StorageClass", "IngressClass",
		"PodDisruptionBudget", "Endpoints", "EndpointSlice",
		"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"CronJob", "HorizontalPodAutoscaler", "Ingress", "Lease",
		"Namespace", "PersistentVolume", "RuntimeClass":
		return true
	}
	return false
}

// splitAPIVersion splits "group/version"; "v1" is the core group.
func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// crdKinds reads the kinds a CustomResourceDefinition serves.
func crdKinds(crd ports.Object) (*kindInfo, error) {
	spec, _ := crd["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	scope, _ := spec["scope"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	plural, _ := names["plural"].(string)
	var problems []string
	if group == "" {
		problems = append(problems, "spec.group: Required value")
	}
	if kind == "" {
		problems = append(problems, "spec.names.kind: Required value")
	}
	if plural == "" {
		problems = append(problems, "spec.names.plural: Required value")
	}
	if want := plural + "." + group; crd.GetName() != want {
		problems = append(problems, fmt.Sprintf("metadata.name: Invalid value: %q: must be spec.names.plural+\".\"+spec.group", crd.GetName()))
	}
	if scope != "Namespaced" && scope != "Cluster" {
		problems = append(problems, fmt.Sprintf("spec.scope: Unsupported value: %q: supported values: \"Cluster\", \"Namespaced\"", scope))
	}
	k := &kindInfo{group: group, kind: kind, namespaced: scope == "Namespaced", generation: true, crd: crd.GetName()}
	raw, _ := spec["versions"].([]any)
	if len(raw) == 0 {
		problems = append(problems, "spec.versions: Invalid value: must have exactly one version marked as storage version")
	}
	storage := 0
	for i, r := range raw {
		v, _ := r.(map[string]any)
		name, _ := v["name"].(string)
		if v["storage"] == true {
			storage++
		}
		if schema, _ := v["schema"].(map[string]any); schema["openAPIV3Schema"] == nil {
			problems = append(problems, fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema: Required value: schemas are required", i))
		}
		if v["served"] != true {
			continue
		}
		k.versions = append(k.versions, name)
		if sub, _ := v["subresources"].(map[string]any); sub["status"] != nil {
			k.status = true
		}
	}
	if len(raw) > 0 && storage != 1 {
		problems = append(problems, "spec.versions: Invalid value: must have exactly one version marked as storage version")
	}
	if len(problems) > 0 {
		return nil, invalid("CustomResourceDefinition.apiextensions.k8s.io", crd.GetName(), problems)
	}
	return k, nil
}
