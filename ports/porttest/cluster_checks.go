package porttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testClusterWaitChecks: a readiness check decides an object's readiness
// from its content, for kinds the adapter would not even watch (a ConfigMap
// is ready once it exists); a check that fails ends the wait at once.
func testClusterWaitChecks(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	cm := mustApply(t, ctx, c, configMap(t, f.Namespace, "gate", `{"state":"closed"}`), ports.ApplyOptions{})
	ref := ports.RefOf(cm)
	check := func(o ports.Object) ports.ObjectStatus {
		switch field(o, "data", "state") {
		case "open":
			return ports.ObjectStatus{Ready: true, Message: "open"}
		case "broken":
			return ports.ObjectStatus{Failed: true, Message: "broken"}
		}
		return ports.ObjectStatus{Message: "state is " + field(o, "data", "state")}
	}
	opts := ports.WaitOptions{Checks: map[ports.ObjectRef]ports.ReadinessCheck{ref: check}}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := c.WaitReady(short, []ports.ObjectRef{ref}, opts)
	cancel()
	var nr *ports.NotReadyError
	if !errors.As(err, &nr) || len(nr.Pending) != 1 || nr.Pending[0].Ref != ref || nr.Pending[0].Message != "state is closed" {
		t.Fatalf("wait for a closed gate: %v", err)
	}
	// closed is closed once the wait has read the gate closed: it then
	// watches, and must see the gate open.
	closed := make(chan struct{})
	var once sync.Once
	watching := opts
	watching.Progress = func(s ports.ObjectStatus) {
		if s.Message == "state is closed" {
			once.Do(func() { close(closed) })
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.WaitReady(ctx, []ports.ObjectRef{ref}, watching) }()
	select {
	case <-closed:
	case err := <-done:
		t.Fatalf("wait for a closed gate ended before reading it: %v", err)
	}
	mustApply(t, ctx, c, configMap(t, f.Namespace, "gate", `{"state":"open"}`), ports.ApplyOptions{})
	if err := <-done; err != nil {
		t.Fatalf("wait for a gate opened meanwhile: %v", err)
	}
	mustApply(t, ctx, c, configMap(t, f.Namespace, "gate", `{"state":"broken"}`), ports.ApplyOptions{})
	if err := c.WaitReady(ctx, []ports.ObjectRef{ref}, opts); err == nil || errors.As(err, &nr) {
		t.Fatalf("wait for a broken gate: %v, want the failure", err)
	}
	// Without a check, a ConfigMap is ready as it is.
	if err := c.WaitReady(ctx, []ports.ObjectRef{ref}, ports.WaitOptions{}); err != nil {
		t.Errorf("wait without a check: %v", err)
	}
}
