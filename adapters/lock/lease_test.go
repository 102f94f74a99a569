package lock

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestLeasesContract(t *testing.T) {
	porttest.ReleaseLocker(t, func(t *testing.T, d time.Duration, clock ports.TickingClock) (ports.ReleaseLocker, [2]string) {
		return NewForClient(optimisticClientset().CoordinationV1(), d, clock), [2]string{"apps", "other"}
	})
}

// optimisticClientset is a fake whose leases carry resource versions and
// refuse stale updates and deletes, as the API server does (client-go's fake
// does not).
func optimisticClientset() *fake.Clientset {
	c := fake.NewClientset()
	var mu sync.Mutex
	version := 0
	c.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := a.(k8stesting.DeleteAction); ok {
			pre := d.GetDeleteOptions().Preconditions
			if pre == nil || pre.ResourceVersion == nil {
				return false, nil, nil
			}
			cur, err := c.Tracker().Get(a.GetResource(), a.GetNamespace(), d.GetName())
			if err != nil {
				return true, nil, err
			}
			if cur.(*coordv1.Lease).ResourceVersion != *pre.ResourceVersion {
				return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), d.GetName(), errors.New("precondition failed"))
			}
			return false, nil, nil
		}
		if a.GetVerb() != "create" && a.GetVerb() != "update" {
			return false, nil, nil
		}
		l := a.(k8stesting.CreateAction).GetObject().(*coordv1.Lease).DeepCopy()
		var err error
		if a.GetVerb() == "update" {
			cur, err := c.Tracker().Get(a.GetResource(), a.GetNamespace(), l.Name)
			if err != nil {
				return true, nil, err
			}
			if cur.(*coordv1.Lease).ResourceVersion != l.ResourceVersion {
				return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), l.Name, errors.New("stale resource version"))
			}
		}
		version++
		l.ResourceVersion = strconv.Itoa(version)
		if a.GetVerb() == "create" {
			err = c.Tracker().Create(a.GetResource(), l, a.GetNamespace())
		} else {
			err = c.Tracker().Update(a.GetResource(), l, a.GetNamespace())
		}
		return true, l, err
	})
	return c
}

// A release whose namespace was deleted can still be uninstalled: no lease can
// exist there, so the lock is a no-op instead of an error.
func TestLeasesNamespaceGone(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "gone")
	})
	ls := NewForClient(client.CoordinationV1(), time.Minute, ports.SystemClock{})
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

// A lease whose holder ran on this machine in this boot and is gone is taken
// over at once; one from another machine (or boot) waits for expiry.
func TestLeasesDeadHolderOnThisHost(t *testing.T) {
	tests := map[string]struct {
		holderBoot string
		holderHost string
		alive      bool
		takenOver  bool
	}{
		"another host name, same boot id": {holderBoot: "boot-1", holderHost: "other"},
		"same boot, process gone":         {holderBoot: "boot-1", takenOver: true},
		"same boot, process running":      {holderBoot: "boot-1", alive: true},
		"another boot or machine":         {holderBoot: "boot-2"},
		"holder without a boot id":        {holderBoot: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			client := fake.NewClientset()
			ctx := context.Background()
			dead := NewForClient(client.CoordinationV1(), time.Minute, ports.SystemClock{}).WithHost(tc.holderBoot, func(int) bool { return true })
			host := tc.holderHost
			if host == "" {
				host = "vm"
			}
			if _, err := dead.Acquire(ctx, "ns", "web", ports.LockHolder{User: "bob", Host: host, PID: 4242}); err != nil {
				t.Fatal(err)
			}
			here := NewForClient(client.CoordinationV1(), time.Minute, ports.SystemClock{}).WithHost("boot-1", func(pid int) bool { return tc.alive })
			held, err := here.Acquire(ctx, "ns", "web", ports.LockHolder{User: "alice", Host: "vm", PID: 7})
			if !tc.takenOver {
				if !errors.Is(err, ports.ErrLocked) {
					t.Fatalf("Acquire = %v, want the lock refused until it expires", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire = %v, want the dead holder's lock taken over", err)
			}
			if prev, recovered := held.Recovered(); !recovered || prev.PID != 4242 {
				t.Errorf("Recovered = %v %v", prev, recovered)
			}
		})
	}
}

// A user who may not use Leases is told so, and what locking needs. A lease
// is read only when one exists (the first attempt creates it).
func TestLeasesForbidden(t *testing.T) {
	for _, verb := range []string{"get", "create"} {
		t.Run(verb, func(t *testing.T) {
			client := fake.NewClientset()
			if verb == "get" {
				if _, err := NewForClient(client.CoordinationV1(), time.Minute, ports.SystemClock{}).Acquire(context.Background(), "prod", "web", ports.LockHolder{User: "bob"}); err != nil {
					t.Fatal(err)
				}
			}
			client.PrependReactor(verb, "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "web", errors.New("no RBAC"))
			})
			_, err := NewForClient(client.CoordinationV1(), time.Minute, ports.SystemClock{}).Acquire(context.Background(), "prod", "web", ports.LockHolder{User: "alice"})
			want := map[string]string{"get": "read", "create": "create"}[verb]
			if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "cannot lock release prod/web: you may not "+want+" its Lease "+LeaseName("web")+" in namespace prod") || !strings.Contains(err.Error(), "get, create and update on leases") {
				t.Errorf("error: %v", err)
			}
		})
	}
}
