package stackrun

import (
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// State is how a release of an applied stack ended.
type State string

// States of a release; pending and running only while the stack applies.
const (
	StatePending    State = "pending"
	StateRunning    State = "running"
	StateApplied    State = "applied"
	StateUnchanged  State = "unchanged"
	StateAbsent     State = "absent"
	StateFailed     State = "failed"
	StateNotStarted State = "not started"
)

// Result is what happened to one release.
type Result struct {
	ID     stack.ID
	Action stack.Action
	State  State
	// Err is why it failed.
	Err error
	// BlockedBy are the releases it comes after that failed or did not start.
	BlockedBy []stack.ID
}

// Summary is what applying a stack did, per release in the stack's order.
type Summary struct {
	Results []Result
}

// Failed reports whether any release failed or did not start.
func (s *Summary) Failed() bool {
	for _, r := range s.Results {
		if r.State == StateFailed || r.State == StateNotStarted {
			return true
		}
	}
	return false
}

// Event is one step of applying a stack, for progress views and --json-events.
type Event struct {
	Time    time.Time    `json:"time"`
	Release stack.ID     `json:"release"`
	Type    string       `json:"type"`
	Action  stack.Action `json:"action,omitempty"`
	Message string       `json:"message,omitempty"`
	// Detail is the release operation's own event (EventProgress).
	Detail *action.Event `json:"detail,omitempty"`
}

// Event types.
const (
	EventStart      = "start"
	EventProgress   = "progress"
	EventDone       = "done"
	EventFailed     = "failed"
	EventNotStarted = "not-started"
)
