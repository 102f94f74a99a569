package release

import (
	"errors"
	"fmt"
	"testing"
)

func TestStatusTransitions(t *testing.T) {
	legal := map[Status]map[Event]Status{
		StatusPendingInstall:  {EventSucceeded: StatusDeployed, EventFailed: StatusFailed, EventUninstallStarted: StatusUninstalling},
		StatusPendingUpgrade:  {EventSucceeded: StatusDeployed, EventFailed: StatusFailed, EventUninstallStarted: StatusUninstalling},
		StatusPendingRollback: {EventSucceeded: StatusDeployed, EventFailed: StatusFailed, EventUninstallStarted: StatusUninstalling},
		StatusDeployed:        {EventSuperseded: StatusSuperseded, EventUninstallStarted: StatusUninstalling},
		StatusFailed:          {EventSuperseded: StatusSuperseded, EventUninstallStarted: StatusUninstalling},
		StatusSuperseded:      {EventUninstallStarted: StatusUninstalling},
		StatusUninstalling:    {EventUninstalled: StatusUninstalled, EventFailed: StatusFailed},
		StatusUninstalled:     {EventReplaced: StatusSuperseded},
		StatusUnknown:         {EventFailed: StatusFailed, EventUninstallStarted: StatusUninstalling},
	}
	for _, from := range AllStatuses() {
		for _, ev := range AllEvents() {
			t.Run(fmt.Sprintf("%s on %s", ev, from), func(t *testing.T) {
				got, err := from.Next(ev)
				want, ok := legal[from][ev]
				if !ok {
					var te *TransitionError
					if !errors.As(err, &te) || te.From != from || te.Event != ev {
						t.Fatalf("Next = %q, %v; want a TransitionError", got, err)
					}
					if got != from {
						t.Errorf("an illegal move changed the status to %q", got)
					}
					return
				}
				if err != nil || got != want {
					t.Fatalf("Next = %q, %v; want %q", got, err, want)
				}
			})
		}
	}
}

func TestApplySetsDescription(t *testing.T) {
	r := &Release{Name: "web", Version: 3, Info: &Info{Status: StatusPendingUpgrade}}
	if err := r.Apply(EventFailed, "timed out"); err != nil {
		t.Fatal(err)
	}
	if r.Info.Status != StatusFailed || r.Info.Description != "timed out" {
		t.Errorf("got %q %q", r.Info.Status, r.Info.Description)
	}
	err := r.Apply(EventSucceeded, "x")
	if err == nil || err.Error() != `release "web" revision 3: release in status "failed" cannot take event "succeeded"` {
		t.Errorf("illegal move error = %v", err)
	}
}

func rev(v int, s Status) *Release { return &Release{Name: "r", Version: v, Info: &Info{Status: s}} }

func TestHistory(t *testing.T) {
	tests := map[string]struct {
		h            History
		max          int
		wantNext     int
		wantLatest   int
		wantDeployed int
		wantPruned   []int
	}{
		"empty": {h: nil, max: 3, wantNext: 1},
		"prune oldest keeping deployed": {
			h:   History{rev(1, StatusDeployed), rev(2, StatusFailed), rev(3, StatusFailed), rev(4, StatusFailed), rev(5, StatusFailed)},
			max: 3, wantNext: 6, wantLatest: 5, wantDeployed: 1, wantPruned: []int{2, 3},
		},
		"unordered input": {
			h:   History{rev(3, StatusDeployed), rev(1, StatusSuperseded), rev(2, StatusSuperseded)},
			max: 2, wantNext: 4, wantLatest: 3, wantDeployed: 3, wantPruned: []int{1},
		},
		"no limit": {
			h:   History{rev(1, StatusSuperseded), rev(2, StatusDeployed)},
			max: -1, wantNext: 3, wantLatest: 2, wantDeployed: 2,
		},
		"room for one (--history-max 1): all but the deployed": {
			h:   History{rev(1, StatusSuperseded), rev(2, StatusSuperseded), rev(3, StatusDeployed)},
			max: 0, wantNext: 4, wantLatest: 3, wantDeployed: 3, wantPruned: []int{1, 2},
		},
		"within limit": {
			h:   History{rev(1, StatusSuperseded), rev(2, StatusDeployed)},
			max: 10, wantNext: 3, wantLatest: 2, wantDeployed: 2,
		},
		"only the deployed revision is kept back, as in Helm": {
			h:   History{rev(1, StatusSuperseded), rev(2, StatusDeployed), rev(3, StatusFailed)},
			max: 1, wantNext: 4, wantLatest: 3, wantDeployed: 2, wantPruned: []int{1, 3},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.h.NextRevision(); got != tc.wantNext {
				t.Errorf("NextRevision = %d, want %d", got, tc.wantNext)
			}
			if got := tc.h.Latest(); (got == nil && tc.wantLatest != 0) || (got != nil && got.Version != tc.wantLatest) {
				t.Errorf("Latest = %v, want %d", got, tc.wantLatest)
			}
			if got := tc.h.LastDeployed(); (got == nil && tc.wantDeployed != 0) || (got != nil && got.Version != tc.wantDeployed) {
				t.Errorf("LastDeployed = %v, want %d", got, tc.wantDeployed)
			}
			var pruned []int
			for _, r := range tc.h.Prune(tc.max) {
				pruned = append(pruned, r.Version)
			}
			if fmt.Sprint(pruned) != fmt.Sprint(tc.wantPruned) {
				t.Errorf("Prune = %v, want %v", pruned, tc.wantPruned)
			}
		})
	}
}
