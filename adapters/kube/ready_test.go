package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestReadiness(t *testing.T) {
	tests := map[string]struct {
		obj           string
		opts          ports.WaitOptions
		ready, failed bool
	}{
		"deployment rolled out": {obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {generation: 2}, spec: {replicas: 2},
			status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2}}`, ready: true},
		"deployment generation not observed": {obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {generation: 3}, spec: {replicas: 1},
			status: {observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}}`},
		"deployment old replicas left": {obj: `{apiVersion: apps/v1, kind: Deployment, spec: {replicas: 1},
			status: {replicas: 2, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}}`},
		"deployment deadline exceeded": {obj: `{apiVersion: apps/v1, kind: Deployment, spec: {replicas: 1},
			status: {conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded}]}}`, failed: true},
		"statefulset ready":       {obj: `{apiVersion: apps/v1, kind: StatefulSet, spec: {replicas: 2}, status: {readyReplicas: 2, updatedReplicas: 2, currentRevision: a, updateRevision: a}}`, ready: true},
		"statefulset rolling":     {obj: `{apiVersion: apps/v1, kind: StatefulSet, spec: {replicas: 2}, status: {readyReplicas: 2, updatedReplicas: 2, currentRevision: a, updateRevision: b}}`},
		"statefulset on delete":   {obj: `{apiVersion: apps/v1, kind: StatefulSet, spec: {replicas: 1, updateStrategy: {type: OnDelete}}, status: {readyReplicas: 1}}`, ready: true},
		"daemonset ready":         {obj: `{apiVersion: apps/v1, kind: DaemonSet, status: {desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3}}`, ready: true},
		"daemonset updating":      {obj: `{apiVersion: apps/v1, kind: DaemonSet, status: {desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberAvailable: 3}}`},
		"replicaset":              {obj: `{apiVersion: apps/v1, kind: ReplicaSet, spec: {replicas: 2}, status: {availableReplicas: 1}}`},
		"pod ready":               {obj: `{apiVersion: v1, kind: Pod, status: {phase: Running, conditions: [{type: Ready, status: "True"}]}}`, ready: true},
		"pod running, completion": {obj: `{apiVersion: v1, kind: Pod, status: {phase: Running, conditions: [{type: Ready, status: "True"}]}}`, opts: ports.WaitOptions{Completion: true}},
		"pod failed":              {obj: `{apiVersion: v1, kind: Pod, status: {phase: Failed}}`, failed: true},
		"job exists":              {obj: `{apiVersion: batch/v1, kind: Job, status: {active: 1}}`, ready: true},
		"job waited for":          {obj: `{apiVersion: batch/v1, kind: Job, status: {active: 1}}`, opts: ports.WaitOptions{WaitForJobs: true}},
		"job complete":            {obj: `{apiVersion: batch/v1, kind: Job, status: {conditions: [{type: Complete, status: "True"}]}}`, opts: ports.WaitOptions{Completion: true}, ready: true},
		"job failed":              {obj: `{apiVersion: batch/v1, kind: Job, status: {conditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded}]}}`, opts: ports.WaitOptions{WaitForJobs: true}, failed: true},
		"pvc pending":             {obj: `{apiVersion: v1, kind: PersistentVolumeClaim, status: {phase: Pending}}`},
		"pvc bound":               {obj: `{apiVersion: v1, kind: PersistentVolumeClaim, status: {phase: Bound}}`, ready: true},
		"cluster ip service":      {obj: `{apiVersion: v1, kind: Service, spec: {type: ClusterIP}}`, ready: true},
		"load balancer":           {obj: `{apiVersion: v1, kind: Service, spec: {type: LoadBalancer}}`},
		"load balancer ready":     {obj: `{apiVersion: v1, kind: Service, spec: {type: LoadBalancer}, status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}}`, ready: true},
		"crd established":         {obj: `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, status: {conditions: [{type: Established, status: "True"}]}}`, ready: true},
		"crd names rejected":      {obj: `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, status: {conditions: [{type: NamesAccepted, status: "False"}]}}`, failed: true},
		"apiservice":              {obj: `{apiVersion: apiregistration.k8s.io/v1, kind: APIService, status: {conditions: [{type: Available, status: "False", reason: MissingEndpoints}]}}`},
		"custom ready":            {obj: `{apiVersion: example.com/v1, kind: Widget, status: {conditions: [{type: Ready, status: "True"}]}}`, ready: true},
		"custom not ready":        {obj: `{apiVersion: example.com/v1, kind: Widget, status: {conditions: [{type: Ready, status: "False"}]}}`},
		"custom available":        {obj: `{apiVersion: example.com/v1, kind: Widget, status: {conditions: [{type: Available, status: "True"}]}}`, ready: true},
		"custom no status":        {obj: `{apiVersion: example.com/v1, kind: Widget}`, ready: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// Through JSON, as the API client decodes: integers stay int64.
			data, err := yaml.YAMLToJSON([]byte(tc.obj))
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(data); err != nil {
				t.Fatal(err)
			}
			s := readiness(u, tc.opts)
			if s.Ready != tc.ready || s.Failed != tc.failed {
				t.Errorf("readiness = ready %v failed %v (%s), want ready %v failed %v", s.Ready, s.Failed, s.Message, tc.ready, tc.failed)
			}
			if s.Message == "" {
				t.Error("no message")
			}
		})
	}
}
