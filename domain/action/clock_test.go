package action

import (
	"context"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// The executor's waits are measured by the lifecycle's clock: a sequenced
// install waiting for an object that never gets ready, within an hour, is
// out of time at once when the clock leaps past the hour between two
// readings (on the wall clock it would wait the hour); a clock standing
// still is the time every event and record carries.
func TestExecutorWaitsByItsClock(t *testing.T) {
	t.Run("a leaping clock ends the wait", func(t *testing.T) {
		h := newOrderHarness()
		clock := porttest.NewClock()
		clock.Leap(2 * time.Hour)
		h.l.Clock = clock
		s := spec(orderedChart(false), nil)
		s.Timeout = time.Hour
		done := make(chan error, 1)
		go func() {
			_, err := h.l.Install(context.Background(), InstallRequest{ReleaseSpec: s})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("install of a never-ready object succeeded")
			}
		case <-time.After(time.Minute):
			t.Fatal("the wait went by the wall clock")
		}
	})
	t.Run("a clock standing still", func(t *testing.T) {
		h := newOrderHarness()
		clock := porttest.NewClock()
		h.l.Clock = clock
		start := clock.Now()
		rel, err := h.l.Install(context.Background(), InstallRequest{ReleaseSpec: spec(orderedChart(true), nil)})
		if err != nil {
			t.Fatal(err)
		}
		if !rel.Info.LastDeployed.Equal(start) {
			t.Errorf("deployed at %s, want the clock's %s", rel.Info.LastDeployed, start)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, e := range h.events {
			if !e.Time.Equal(start) {
				t.Fatalf("event %q at %s, want the clock's %s", e.Message, e.Time, start)
			}
		}
	})
}
