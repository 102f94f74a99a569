package action

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// A test that did not complete says what each Helm says of its objects as
// they were when the wait ended (the words checked against Helm v4.3.1 and
// v3.22.0 on a cluster by test/e2e/lifecycle's helmwords_test.go).
func TestTestFailureWords(t *testing.T) {
	failedJob := ports.Object{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "web-bad", "namespace": "ns"},
		"spec":     map[string]any{"backoffLimit": int64(0)},
		"status": map[string]any{"failed": int64(1), "conditions": []any{
			map[string]any{"type": "FailureTarget", "status": "True", "reason": "DeadlineExceeded"},
			map[string]any{"type": "Failed", "status": "True", "reason": "DeadlineExceeded"},
		}}}
	runningPod := ports.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web-pod", "namespace": "ns"},
		"status":   map[string]any{"phase": "Running"}}
	failedPod := ports.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web-pod", "namespace": "ns"},
		"status":   map[string]any{"phase": "Failed"}}
	settings := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}}
	tests := map[string]struct {
		live     []ports.Object
		timedOut bool
		helm4    string
		helm3    string
	}{
		"failed job": {
			live:  []ports.Object{failedJob, settings},
			helm4: "resource Job/ns/web-bad not ready. status: Failed, message: Job Failed. failed: 1/1",
			helm3: "1 error occurred:\n\t* job web-bad failed: DeadlineExceeded\n\n",
		},
		"failed pod": {
			live:  []ports.Object{failedPod},
			helm4: "resource Pod/ns/web-pod not ready. status: Failed, message: pod web-pod failed",
			helm3: "1 error occurred:\n\t* pod web-pod failed\n\n",
		},
		"timed out": {
			live: []ports.Object{runningPod}, timedOut: true,
			helm4: "resource Pod/ns/web-pod not ready. status: InProgress, message: Pod in progress\ncontext deadline exceeded",
			helm3: "1 error occurred:\n\t* timed out waiting for the condition\n\n",
		},
		"two": {
			live: []ports.Object{failedJob, runningPod}, timedOut: true,
			helm4: "resource Job/ns/web-bad not ready. status: Failed, message: Job Failed. failed: 1/1\nresource Pod/ns/web-pod not ready. status: InProgress, message: Pod in progress\ncontext deadline exceeded",
			helm3: "2 errors occurred:\n\t* job web-bad failed: DeadlineExceeded\n\t* timed out waiting for the condition\n\n",
		},
		// The objects do not say why: the failure as the wait had it.
		"unexplained": {
			live:  []ports.Object{runningPod},
			helm4: "test hook t.yaml failed: boom",
			helm3: "test hook t.yaml failed: boom",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			he := &HookError{Event: "test", Path: "t.yaml", Err: errors.New("boom"), Live: tc.live, TimedOut: tc.timedOut}
			for d, want := range map[dialect.Dialect]string{dialect.Helm4: tc.helm4, dialect.Helm3: tc.helm3} {
				if got := hookFailure(d, true, he).Error(); got != want {
					t.Errorf("%s: %q, want %q", d, got, want)
				}
			}
		})
	}
}

// Hooks of the other events are named as each of Helm's use cases names
// them: install's and upgrade's in their own words, a rollback's not at all.
func TestHookFailureNamesTheEvent(t *testing.T) {
	failedPod := ports.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "m", "namespace": "ns"},
		"status":   map[string]any{"phase": "Failed"}}
	tests := map[string]struct {
		d    dialect.Dialect
		ev   release.HookEvent
		want string
	}{
		"pre-install, Helm 4":  {dialect.Helm4, release.HookPreInstall, "failed pre-install: resource Pod/ns/m not ready. status: Failed, message: pod m failed"},
		"post-install, Helm 3": {dialect.Helm3, release.HookPostInstall, "failed post-install: 1 error occurred:\n\t* pod m failed\n\n"},
		"post-upgrade, Helm 3": {dialect.Helm3, release.HookPostUpgrade, "post-upgrade hooks failed: 1 error occurred:\n\t* pod m failed\n\n"},
		"pre-rollback, Helm 3": {dialect.Helm3, release.HookPreRollback, "1 error occurred:\n\t* pod m failed\n\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			he := &HookError{Event: tc.ev, Path: "h.yaml", Err: errors.New("boom"), Live: []ports.Object{failedPod}}
			if got := hookFailure(tc.d, true, he).Error(); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

// A hook object the API server refused, as each Helm's creation of hooks
// says it (checked against Helm v4.3.1 on the dev cluster: a ConfigMap hook
// named with capitals, a test Job without an image).
func TestHookCreateFailureWords(t *testing.T) {
	refused := &ports.ApplyError{Ref: ports.ObjectRef{APIVersion: "batch/v1", Kind: "Job", Namespace: "ns", Name: "r-test"}, Err: errors.New(`Job.batch "r-test" is invalid: spec.template.spec.containers[0].image: Required value`)}
	tests := map[string]struct {
		d          dialect.Dialect
		serverSide bool
		ev         release.HookEvent
		want       string
	}{
		"test, Helm 4": {dialect.Helm4, true, release.HookTest,
			`warning: Hook test t.yaml failed: server-side apply failed for object ns/r-test batch/v1, Kind=Job: Job.batch "r-test" is invalid: spec.template.spec.containers[0].image: Required value`},
		"pre-upgrade, Helm 4 client-side": {dialect.Helm4, false, release.HookPreUpgrade,
			`pre-upgrade hooks failed: warning: Hook pre-upgrade t.yaml failed: Job.batch "r-test" is invalid: spec.template.spec.containers[0].image: Required value`},
		"pre-install, Helm 3": {dialect.Helm3, false, release.HookPreInstall,
			"failed pre-install: warning: Hook pre-install t.yaml failed: 1 error occurred:\n\t* Job.batch \"r-test\" is invalid: spec.template.spec.containers[0].image: Required value\n\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			he := &HookError{Event: tc.ev, Path: "t.yaml", Err: refused}
			if got := hookFailure(tc.d, tc.serverSide, he).Error(); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
	// Any other failure to run a hook is as it is.
	other := &HookError{Event: release.HookTest, Path: "t.yaml", Err: errors.New("boom")}
	if got := hookFailure(dialect.Helm4, true, other); got != error(other) {
		t.Errorf("%v, want the error as it is", got)
	}
}

// A hook object the server would not create (one an earlier run left) is
// worded as each Helm words its create's error, under the event's words.
func TestHookCreateRefusedWords(t *testing.T) {
	ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "r1-pre"}
	refused := &ports.CreateError{Ref: ref, Err: errors.New(`configmaps "r1-pre" already exists`)}
	tests := map[string]struct {
		d    dialect.Dialect
		ev   release.HookEvent
		want string
	}{
		"pre-upgrade, Helm 3": {dialect.Helm3, release.HookPreUpgrade,
			"pre-upgrade hooks failed: warning: Hook pre-upgrade app/templates/pre.yaml failed: 1 error occurred:\n\t* configmaps \"r1-pre\" already exists\n\n"},
		"pre-install, Helm 3": {dialect.Helm3, release.HookPreInstall,
			"failed pre-install: warning: Hook pre-install app/templates/pre.yaml failed: 1 error occurred:\n\t* configmaps \"r1-pre\" already exists\n\n"},
		"pre-delete, Helm 3": {dialect.Helm3, release.HookPreDelete,
			"warning: Hook pre-delete app/templates/pre.yaml failed: 1 error occurred:\n\t* configmaps \"r1-pre\" already exists\n\n"},
		"pre-rollback, Helm 4": {dialect.Helm4, release.HookPreRollback,
			"warning: Hook pre-rollback app/templates/pre.yaml failed: configmaps \"r1-pre\" already exists"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			he := &HookError{Event: tc.ev, Path: "app/templates/pre.yaml", Err: refused}
			if got := hookFailure(tc.d, false, he).Error(); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
