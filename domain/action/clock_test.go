package action

import (
	"context"
	"sync"
	"testing"
	"time"
)

// leapClock moves on by step each time it is read.
type leapClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *leapClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// The executor's waits are measured by the lifecycle's clock: a sequenced
// install waiting for an object that never gets ready, within an hour, is
// out of time at once when the clock leaps past the hour between two
// readings (on the wall clock it would wait the hour); a clock standing
// still is the time every event and record carries.
func TestExecutorWaitsByItsClock(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t.Run("a leaping clock ends the wait", func(t *testing.T) {
		h := newOrderHarness()
		h.l.Clock = &leapClock{t: start, step: 2 * time.Hour}
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
		h.l.Clock = &leapClock{t: start}
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
