package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// alwaysReady are kinds that are ready as soon as they exist: they have no
// status a controller fills in. Waiting skips them.
var alwaysReady = map[string]bool{
	"ConfigMap": true, "Secret": true, "ServiceAccount": true, "Role": true, "RoleBinding": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "NetworkPolicy": true, "LimitRange": true,
	"ResourceQuota": true, "PriorityClass": true, "StorageClass": true, "IngressClass": true,
	"PodDisruptionBudget": true, "Endpoints": true, "EndpointSlice": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"CronJob": true, "HorizontalPodAutoscaler": true, "Ingress": true, "Lease": true,
	"Namespace": true, "PersistentVolume": true, "RuntimeClass": true,
}

// readiness computes an object's status with kstatus-style rules: the
// controller must have observed the latest generation, then each kind has its
// own test; other kinds follow their Ready or Available condition when they
// have one, and are ready otherwise.
func readiness(u *unstructured.Unstructured, opts ports.WaitOptions) ports.ObjectStatus {
	st := ports.ObjectStatus{Ref: ports.RefOf(ports.Object(u.Object))}
	if u.GetDeletionTimestamp() != nil {
		st.Message = "being deleted"
		return st
	}
	if og, found, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); found && og < u.GetGeneration() {
		st.Message = fmt.Sprintf("controller has not observed generation %d yet", u.GetGeneration())
		return st
	}
	ready, failed, msg := kindReady(u, opts)
	st.Ready, st.Failed, st.Message = ready, failed, msg
	if ready && msg == "" {
		st.Message = "ready"
	}
	return st
}

func kindReady(u *unstructured.Unstructured, opts ports.WaitOptions) (ready, failed bool, msg string) {
	obj := u.Object
	i64 := func(path ...string) int64 { v, _, _ := unstructured.NestedInt64(obj, path...); return v }
	str := func(path ...string) string { v, _, _ := unstructured.NestedString(obj, path...); return v }
	specReplicas := func() int64 {
		if v, found, _ := unstructured.NestedInt64(obj, "spec", "replicas"); found {
			return v
		}
		return 1
	}
	switch u.GetKind() {
	case "Deployment":
		if c := condition(u, "Progressing"); c != nil && c.status == "False" && c.reason == "ProgressDeadlineExceeded" {
			return false, true, "progress deadline exceeded: " + c.message
		}
		want := specReplicas()
		updated, avail, ready := i64("status", "updatedReplicas"), i64("status", "availableReplicas"), i64("status", "readyReplicas")
		total := i64("status", "replicas")
		switch {
		case updated < want:
			return false, false, fmt.Sprintf("%d of %d replicas updated", updated, want)
		case total > updated:
			return false, false, fmt.Sprintf("%d old replicas pending termination", total-updated)
		case avail < want || ready < want:
			return false, false, fmt.Sprintf("%d of %d updated replicas available", avail, want)
		}
		return true, false, ""
	case "StatefulSet":
		want := specReplicas()
		ready := i64("status", "readyReplicas")
		if str("spec", "updateStrategy", "type") != "OnDelete" {
			partition := i64("spec", "updateStrategy", "rollingUpdate", "partition")
			if updated := i64("status", "updatedReplicas"); updated < want-partition {
				return false, false, fmt.Sprintf("%d of %d replicas updated", updated, want-partition)
			}
			if partition == 0 && str("status", "currentRevision") != str("status", "updateRevision") {
				return false, false, "rolling update in progress"
			}
		}
		if ready < want {
			return false, false, fmt.Sprintf("%d of %d replicas ready", ready, want)
		}
		return true, false, ""
	case "DaemonSet":
		desired := i64("status", "desiredNumberScheduled")
		updated, avail := i64("status", "updatedNumberScheduled"), i64("status", "numberAvailable")
		if updated < desired {
			return false, false, fmt.Sprintf("%d of %d pods updated", updated, desired)
		}
		if avail < desired {
			return false, false, fmt.Sprintf("%d of %d pods available", avail, desired)
		}
		return true, false, ""
	case "ReplicaSet", "ReplicationController":
		want := specReplicas()
		if avail := i64("status", "availableReplicas"); avail < want {
			return false, false, fmt.Sprintf("%d of %d replicas available", avail, want)
		}
		return true, false, ""
	case "Pod":
		switch phase := str("status", "phase"); phase {
		case "Succeeded":
			return true, false, "succeeded"
		case "Failed":
			return false, true, "pod failed: " + str("status", "reason") + " " + str("status", "message")
		default:
			if opts.Completion {
				return false, false, "phase " + orUnknown(phase)
			}
			if c := condition(u, "Ready"); c != nil && c.status == "True" {
				return true, false, ""
			}
			return false, false, "phase " + orUnknown(phase) + ", not ready"
		}
	case "Job":
		if c := condition(u, "Failed"); c != nil && c.status == "True" {
			return false, true, "job failed: " + c.reason + " " + c.message
		}
		if c := condition(u, "Complete"); c != nil && c.status == "True" {
			return true, false, "complete"
		}
		if !opts.WaitForJobs && !opts.Completion {
			return true, false, ""
		}
		return false, false, fmt.Sprintf("%d succeeded, %d active", i64("status", "succeeded"), i64("status", "active"))
	case "PersistentVolumeClaim":
		if phase := str("status", "phase"); phase != "Bound" {
			return false, false, "phase " + orUnknown(phase)
		}
		return true, false, ""
	case "Service":
		if str("spec", "type") != "LoadBalancer" {
			return true, false, ""
		}
		if ext, _, _ := unstructured.NestedStringSlice(obj, "spec", "externalIPs"); len(ext) > 0 {
			return true, false, ""
		}
		if ing, _, _ := unstructured.NestedSlice(obj, "status", "loadBalancer", "ingress"); len(ing) > 0 {
			return true, false, ""
		}
		return false, false, "waiting for a load balancer address"
	case "CustomResourceDefinition":
		if c := condition(u, "NamesAccepted"); c != nil && c.status == "False" {
			return false, true, "names not accepted: " + c.message
		}
		if c := condition(u, "Established"); c != nil && c.status == "True" {
			return true, false, ""
		}
		return false, false, "not established"
	case "APIService":
		if c := condition(u, "Available"); c != nil && c.status == "True" {
			return true, false, ""
		} else if c != nil {
			return false, false, "not available: " + c.reason + " " + c.message
		}
		return false, false, "not available"
	}
	for _, t := range []string{"Ready", "Available"} {
		if c := condition(u, t); c != nil {
			if c.status == "True" {
				return true, false, ""
			}
			return false, false, fmt.Sprintf("%s is %s: %s %s", t, c.status, c.reason, c.message)
		}
	}
	return true, false, ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

type cond struct{ status, reason, message string }

func condition(u *unstructured.Unstructured, typ string) *cond {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		s := func(k string) string { v, _ := m[k].(string); return v }
		return &cond{status: s("status"), reason: s("reason"), message: s("message")}
	}
	return nil
}
