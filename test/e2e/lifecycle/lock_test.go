//go:build e2e

package lifecycle

import (
	"context"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestLeaseLockerContract(t *testing.T) {
	t.Parallel()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	// The suite releases every lock it takes, so its cases share two
	// namespaces (a namespace takes seconds to delete).
	namespaces := [2]string{env.Namespace(t), env.Namespace(t)}
	porttest.ReleaseLocker(t, func(_ *testing.T, d time.Duration, clock ports.TickingClock) (ports.ReleaseLocker, [2]string) {
		return lock.NewForClient(client.CoordinationV1(), d, clock), namespaces
	})
}

// A lease left by a holder that died (written by hand, as another version or
// tool would leave it) is taken over and reported.
func TestLeaseOfADeadHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t)
	locker, err := lock.New(env.Config(), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
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
