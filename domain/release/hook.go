package release

import "github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"

// HookEvent is when a hook runs.
type HookEvent string

// Hook events, as named in the helm.sh/hook annotation.
const (
	HookPreInstall   HookEvent = "pre-install"
	HookPostInstall  HookEvent = "post-install"
	HookPreDelete    HookEvent = "pre-delete"
	HookPostDelete   HookEvent = "post-delete"
	HookPreUpgrade   HookEvent = "pre-upgrade"
	HookPostUpgrade  HookEvent = "post-upgrade"
	HookPreRollback  HookEvent = "pre-rollback"
	HookPostRollback HookEvent = "post-rollback"
	HookTest         HookEvent = "test"
)

// ParseHookEvent reads an event name from the annotation; "test-success" is the
// Helm 2 name of "test".
func ParseHookEvent(s string) (HookEvent, bool) {
	switch e := HookEvent(s); e {
	case HookPreInstall, HookPostInstall, HookPreDelete, HookPostDelete, HookPreUpgrade,
		HookPostUpgrade, HookPreRollback, HookPostRollback, HookTest:
		return e, true
	case "test-success":
		return HookTest, true
	}
	return "", false
}

// HookDeletePolicy says when a hook's object is deleted.
type HookDeletePolicy string

// Hook delete policies.
const (
	HookSucceeded          HookDeletePolicy = "hook-succeeded"
	HookFailed             HookDeletePolicy = "hook-failed"
	HookBeforeHookCreation HookDeletePolicy = "before-hook-creation"
)

// HookOutputLogPolicy says when a hook's pod logs are shown.
type HookOutputLogPolicy string

// Hook output log policies.
const (
	HookOutputOnSucceeded HookOutputLogPolicy = "hook-succeeded"
	HookOutputOnFailed    HookOutputLogPolicy = "hook-failed"
)

// Annotations that make a manifest a hook.
const (
	HookAnnotation          = "helm.sh/hook"
	HookWeightAnnotation    = "helm.sh/hook-weight"
	HookDeleteAnnotation    = "helm.sh/hook-delete-policy"
	HookOutputLogAnnotation = "helm.sh/hook-output-log-policy"
)

// HookPhase is the outcome of a hook's last run.
type HookPhase string

// Hook phases.
const (
	HookPhaseUnknown   HookPhase = "Unknown"
	HookPhaseRunning   HookPhase = "Running"
	HookPhaseSucceeded HookPhase = "Succeeded"
	HookPhaseFailed    HookPhase = "Failed"
)

// Hook is a manifest that runs at a lifecycle event instead of being part of the
// release's resources. JSON names as in Helm's release records.
type Hook struct {
	Name              string                `json:"name,omitempty"`
	Kind              string                `json:"kind,omitempty"`
	Path              string                `json:"path,omitempty"`
	Manifest          string                `json:"manifest,omitempty"`
	Events            []HookEvent           `json:"events,omitempty"`
	LastRun           HookExecution         `json:"last_run,omitempty"`
	Weight            int                   `json:"weight,omitempty"`
	DeletePolicies    []HookDeletePolicy    `json:"delete_policies,omitempty"`
	OutputLogPolicies []HookOutputLogPolicy `json:"output_log_policies,omitempty"`

	rest jsonobj.Rest // see json.go
}

// HookExecution records a hook's last run.
type HookExecution struct {
	StartedAt   Time      `json:"started_at,omitempty"`
	CompletedAt Time      `json:"completed_at,omitempty"`
	Phase       HookPhase `json:"phase"`

	rest jsonobj.Rest // see json.go
}

// IsTest reports whether the hook is a test.
func (h *Hook) IsTest() bool {
	for _, e := range h.Events {
		if e == HookTest {
			return true
		}
	}
	return false
}
