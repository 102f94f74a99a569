package lock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLeases(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	// A long duration: renewals (every third of it) stay out of the test.
	ls := NewForClient(fake.NewClientset().CoordinationV1(), time.Hour, clk.now)
	alice := ports.LockHolder{User: "alice", Host: "ci", PID: 7, Command: "kubectl chart upgrade web ./c"}

	held, err := ls.Acquire(ctx, "apps", "web", alice)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ls.Acquire(ctx, "apps", "web", ports.LockHolder{User: "bob"})
	var le *ports.LockedError
	if !errors.As(err, &le) || le.Holder.User != "alice" || le.Holder.PID != 7 || le.Holder.Command != alice.Command || !le.Expires.Equal(clk.now().Add(time.Hour)) {
		t.Fatalf("second acquire = %v", err)
	}
	if _, err := ls.Acquire(ctx, "apps", "db", ports.LockHolder{User: "bob"}); err != nil {
		t.Errorf("another release's lock: %v", err)
	}

	// The holder dies: after the duration, the lock is taken over and recovered.
	clk.add(time.Hour + time.Second)
	bob, err := ls.Acquire(ctx, "apps", "web", ports.LockHolder{User: "bob"})
	if err != nil {
		t.Fatalf("take over: %v", err)
	}
	if prev, ok := bob.Recovered(); !ok || prev.User != "alice" {
		t.Errorf("Recovered = %v, %v", prev, ok)
	}
	// The dead holder's release must not free bob's lock.
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Acquire(ctx, "apps", "web", ports.LockHolder{User: "carol"}); !errors.Is(err, ports.ErrLocked) {
		t.Errorf("after the old holder released, acquire = %v", err)
	}
	if err := bob.Release(ctx); err != nil {
		t.Fatal(err)
	}
	carol, err := ls.Acquire(ctx, "apps", "web", ports.LockHolder{User: "carol"})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	if _, ok := carol.Recovered(); ok {
		t.Error("a released lock reported as recovered")
	}
	_ = carol.Release(ctx)
}

// A release whose namespace was deleted can still be uninstalled: no lease can
// exist there, so the lock is a no-op instead of an error.
func TestLeasesNamespaceGone(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "gone")
	})
	ls := NewForClient(client.CoordinationV1(), time.Minute, time.Now)
	held, err := ls.Acquire(context.Background(), "gone", "web", ports.LockHolder{User: "alice"})
	if err != nil {
		t.Fatalf("Acquire in a missing namespace: %v", err)
	}
	if _, recovered := held.Recovered(); recovered {
		t.Error("a lock in a missing namespace reports a recovery")
	}
	select {
	case <-held.Lost():
		t.Error("the lock is lost at once")
	default:
	}
	if err := held.Release(context.Background()); err != nil {
		t.Errorf("Release: %v", err)
	}
}
