package lifecycle

import (
	"context"
	"errors"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestLeaseLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t)
	locker, err := lock.New(env.Config(), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	alice := ports.LockHolder{User: "alice", Host: "ci-7", PID: 42, Command: "kubectl chart upgrade web ./c"}
	held, err := locker.Acquire(ctx, ns, "web", alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, recovered := held.Recovered(); recovered {
		t.Error("a fresh lock reports a recovery")
	}
	_, err = locker.Acquire(ctx, ns, "web", ports.LockHolder{User: "bob"})
	var le *ports.LockedError
	if !errors.As(err, &le) || !errors.Is(err, ports.ErrLocked) || le.Holder.User != "alice" || le.Holder.Host != "ci-7" || le.Holder.PID != 42 || le.Holder.Command != alice.Command {
		t.Fatalf("second acquire = %v", err)
	}
	// Renewal keeps the lock past its duration.
	time.Sleep(4 * time.Second)
	if _, err := locker.Acquire(ctx, ns, "web", ports.LockHolder{User: "bob"}); !errors.Is(err, ports.ErrLocked) {
		t.Fatalf("acquire after the duration, while renewed = %v", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	bob, err := locker.Acquire(ctx, ns, "web", ports.LockHolder{User: "bob"})
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if _, recovered := bob.Recovered(); recovered {
		t.Error("a released lock was reported as recovered")
	}
	if err := bob.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// A holder that died: its lease is not renewed and expires.
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	id, secs := "dead@host/1", int32(1)
	past := metav1.NewMicroTime(time.Now().Add(-time.Minute))
	dead := &coordv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: lock.LeaseName("db"), Annotations: map[string]string{lock.HolderAnnotation: `{"user":"dead","host":"host","pid":1}`}},
		Spec:       coordv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs, AcquireTime: &past, RenewTime: &past},
	}
	if _, err := client.CoordinationV1().Leases(ns).Create(ctx, dead, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	taken, err := locker.Acquire(ctx, ns, "db", ports.LockHolder{User: "carol"})
	if err != nil {
		t.Fatalf("take over an expired lease: %v", err)
	}
	if prev, recovered := taken.Recovered(); !recovered || prev.User != "dead" {
		t.Errorf("Recovered = %v, %v", prev, recovered)
	}
	if err := taken.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
