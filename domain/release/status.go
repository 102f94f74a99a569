package release

import "fmt"

// Status is the state of a revision.
type Status string

// Statuses, as Helm names them.
const (
	StatusUnknown         Status = "unknown"
	StatusDeployed        Status = "deployed"
	StatusUninstalled     Status = "uninstalled"
	StatusSuperseded      Status = "superseded"
	StatusFailed          Status = "failed"
	StatusUninstalling    Status = "uninstalling"
	StatusPendingInstall  Status = "pending-install"
	StatusPendingUpgrade  Status = "pending-upgrade"
	StatusPendingRollback Status = "pending-rollback"
)

// AllStatuses lists every status.
func AllStatuses() []Status {
	return []Status{StatusUnknown, StatusDeployed, StatusUninstalled, StatusSuperseded, StatusFailed,
		StatusUninstalling, StatusPendingInstall, StatusPendingUpgrade, StatusPendingRollback}
}

func (s Status) String() string { return string(s) }

// IsPending reports whether an operation on the revision is in progress (or was
// interrupted).
func (s Status) IsPending() bool {
	return s == StatusPendingInstall || s == StatusPendingUpgrade || s == StatusPendingRollback
}

// Event is something that happens to an existing revision.
type Event string

// Events of a revision's life.
const (
	// EventSucceeded: the install, upgrade or rollback that created the revision completed.
	EventSucceeded Event = "succeeded"
	// EventFailed: that operation failed (or was interrupted and is being recovered).
	EventFailed Event = "failed"
	// EventSuperseded: a newer revision became the deployed one.
	EventSuperseded Event = "superseded"
	// EventUninstallStarted: an uninstall began on the revision.
	EventUninstallStarted Event = "uninstall-started"
	// EventUninstalled: the uninstall completed and history is kept.
	EventUninstalled Event = "uninstalled"
	// EventReplaced: a new install re-uses the name of the uninstalled
	// release (install --replace, upgrade --install).
	EventReplaced Event = "replaced"
)

// AllEvents lists every event.
func AllEvents() []Event {
	return []Event{EventSucceeded, EventFailed, EventSuperseded, EventUninstallStarted, EventUninstalled, EventReplaced}
}

// TransitionError is an event that cannot happen to a revision in its status.
type TransitionError struct {
	From  Status
	Event Event
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("release in status %q cannot take event %q", e.From, e.Event)
}

// Next returns the status after an event, or a *TransitionError for an illegal move.
func (s Status) Next(e Event) (Status, error) {
	if to, ok := next(s, e); ok {
		return to, nil
	}
	return s, &TransitionError{From: s, Event: e}
}

func next(s Status, e Event) (Status, bool) {
	switch s {
	case StatusPendingInstall, StatusPendingUpgrade, StatusPendingRollback:
		switch e {
		case EventSucceeded:
			return StatusDeployed, true
		case EventFailed:
			return StatusFailed, true
		case EventUninstallStarted:
			// Helm uninstalls a release whatever its latest revision's status.
			return StatusUninstalling, true
		}
	case StatusDeployed, StatusFailed:
		switch e {
		case EventSuperseded:
			return StatusSuperseded, true
		case EventUninstallStarted:
			return StatusUninstalling, true
		}
	case StatusSuperseded:
		if e == EventUninstallStarted {
			return StatusUninstalling, true
		}
	case StatusUninstalling:
		switch e {
		case EventUninstalled:
			return StatusUninstalled, true
		case EventFailed:
			return StatusFailed, true
		}
	case StatusUninstalled:
		if e == EventReplaced {
			return StatusSuperseded, true
		}
	case StatusUnknown:
		switch e {
		case EventFailed:
			return StatusFailed, true
		case EventUninstallStarted:
			return StatusUninstalling, true
		}
	}
	return s, false
}

// Apply moves the revision's status by an event, setting its description.
func (r *Release) Apply(e Event, description string) error {
	if r.Info == nil {
		r.Info = &Info{Status: StatusUnknown}
	}
	to, err := r.Info.Status.Next(e)
	if err != nil {
		return fmt.Errorf("release %q revision %d: %w", r.Name, r.Version, err)
	}
	r.SetStatus(to, description)
	return nil
}
