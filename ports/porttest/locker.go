package porttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// NewReleaseLocker returns an empty locker whose locks last duration on clock
// unless renewed (on clock's ticks), and two namespaces it may lock releases
// in.
type NewReleaseLocker func(t *testing.T, duration time.Duration, clock ports.TickingClock) (ports.ReleaseLocker, [2]string)

// lockDuration is how long the suite's locks last on its clock: a holder
// renews within it (a locker may round it up to whole seconds).
const lockDuration = time.Hour

// ReleaseLocker runs the contract every ports.ReleaseLocker adapter must meet.
func ReleaseLocker(t *testing.T, newLocker NewReleaseLocker) {
	tests := map[string]func(t *testing.T, ls ports.ReleaseLocker, ns [2]string, clk *Clock){
		"held lock names its holder":         testLockHeld,
		"releases lock independently":        testLockIndependent,
		"released lock is free":              testLockReleased,
		"expired lock is recovered":          testLockExpired,
		"concurrent acquire: one wins":       testLockConcurrent,
		"taken-over lock is lost":            testLockLostToTakeover,
		"renewed lock outlives its duration": testLockRenewed,
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			clk := NewClock()
			ls, ns := newLocker(t, lockDuration, clk)
			test(t, ls, ns, clk)
		})
	}
}

// lockStep is how far the suite moves its clock at a time while a holder
// runs: short beside lockDuration, so that a holder renewing on any interval
// under half of it renews in time.
const lockStep = lockDuration / 10

func testLockLostToTakeover(t *testing.T, ls ports.ReleaseLocker, ns [2]string, clk *Clock) {
	// Alice's process stalls past expiry and bob takes over; alice's next
	// renewals must find the lock gone. An Add returns once its ticks are
	// taken, so after two steps the first of those renewals has finished.
	lk := acquire(t, ls, ns[0], "web", alice)
	clk.Skip(lockDuration + time.Second)
	acquire(t, ls, ns[0], "web", bob)
	for range lockDuration / lockStep {
		clk.Add(lockStep)
		select {
		case <-lk.Lost():
			assertLockedBy(t, ls, ns[0], "web", bob)
			return
		default:
		}
	}
	t.Fatalf("the taken-over lock was not reported lost after renewing for %s", lockDuration)
}

func testLockRenewed(t *testing.T, ls ports.ReleaseLocker, ns [2]string, clk *Clock) {
	// Alice's process runs for three lock durations: its renewals keep the
	// lock. An Add returns once its ticks are taken, so every renewal but
	// the last has finished at each step, and that one keeps the lock.
	lk := acquire(t, ls, ns[0], "web", alice)
	for range 3 * lockDuration / lockStep {
		clk.Add(lockStep)
	}
	assertLockedBy(t, ls, ns[0], "web", alice)
	select {
	case <-lk.Lost():
		t.Error("a renewed lock is lost")
	default:
	}
}

var (
	alice = ports.LockHolder{User: "alice", Host: "ci-7", PID: 42, Command: "kubectl chart upgrade web ./c"}
	bob   = ports.LockHolder{User: "bob", Host: "laptop", PID: 43, Command: "kubectl chart rollback web"}
	carol = ports.LockHolder{User: "carol", Host: "desk", PID: 44, Command: "kubectl chart uninstall web"}
)

func acquire(t *testing.T, ls ports.ReleaseLocker, namespace, name string, h ports.LockHolder) ports.Lock {
	t.Helper()
	lk, err := ls.Acquire(context.Background(), namespace, name, h)
	if err != nil {
		t.Fatalf("%s acquires %s/%s: %v", h.User, namespace, name, err)
	}
	t.Cleanup(func() { _ = lk.Release(context.Background()) })
	return lk
}

// assertLockedBy checks that by holds the lock and returns when it expires.
func assertLockedBy(t *testing.T, ls ports.ReleaseLocker, namespace, name string, by ports.LockHolder) time.Time {
	t.Helper()
	_, err := ls.Acquire(context.Background(), namespace, name, carol)
	var le *ports.LockedError
	if !errors.As(err, &le) || !errors.Is(err, ports.ErrLocked) {
		t.Fatalf("acquire of %s/%s held by %s = %v, want a LockedError", namespace, name, by.User, err)
	}
	if h := le.Holder; h.User != by.User || h.Host != by.Host || h.PID != by.PID || h.Command != by.Command {
		t.Errorf("holder = %+v, want %+v", h, by)
	}
	if le.Namespace != namespace || le.Name != name {
		t.Errorf("locked release = %s/%s, want %s/%s", le.Namespace, le.Name, namespace, name)
	}
	return le.Expires
}

func testLockHeld(t *testing.T, ls ports.ReleaseLocker, ns [2]string, clk *Clock) {
	lk := acquire(t, ls, ns[0], "web", alice)
	if _, recovered := lk.Recovered(); recovered {
		t.Error("a fresh lock reports a recovery")
	}
	if expires := assertLockedBy(t, ls, ns[0], "web", alice); !expires.Equal(clk.Now().Add(lockDuration)) {
		t.Errorf("expires = %s, want %s", expires, clk.Now().Add(lockDuration))
	}
	select {
	case <-lk.Lost():
		t.Error("a held lock is lost")
	default:
	}
}

func testLockIndependent(t *testing.T, ls ports.ReleaseLocker, ns [2]string, _ *Clock) {
	acquire(t, ls, ns[0], "web", alice)
	acquire(t, ls, ns[0], "db", bob)
	acquire(t, ls, ns[1], "web", bob)
	assertLockedBy(t, ls, ns[0], "db", bob)
}

func testLockReleased(t *testing.T, ls ports.ReleaseLocker, ns [2]string, _ *Clock) {
	lk := acquire(t, ls, ns[0], "web", alice)
	if err := lk.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := acquire(t, ls, ns[0], "web", bob)
	if _, recovered := next.Recovered(); recovered {
		t.Error("a released lock is reported as recovered")
	}
}

func testLockExpired(t *testing.T, ls ports.ReleaseLocker, ns [2]string, clk *Clock) {
	dead := acquire(t, ls, ns[0], "web", alice)
	// Alice's process died: the time passes without its renewals.
	clk.Skip(lockDuration + time.Second)
	taken := acquire(t, ls, ns[0], "web", bob)
	if prev, recovered := taken.Recovered(); !recovered || prev.User != alice.User || prev.PID != alice.PID {
		t.Errorf("Recovered = %+v, %v; want alice's lock", prev, recovered)
	}
	// The old holder, should it come back, must not free the new holder's lock.
	if err := dead.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertLockedBy(t, ls, ns[0], "web", bob)
}

func testLockConcurrent(t *testing.T, ls ports.ReleaseLocker, ns [2]string, _ *Clock) {
	const n = 8
	var wg sync.WaitGroup
	locks := make(chan ports.Lock, n)
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := bob
			h.Host, h.PID = fmt.Sprintf("host-%d", i), 1000+i
			lk, err := ls.Acquire(context.Background(), ns[0], "web", h)
			if err != nil {
				errs <- err
				return
			}
			locks <- lk
		}()
	}
	wg.Wait()
	close(locks)
	close(errs)
	if len(locks) != 1 {
		t.Errorf("%d of %d concurrent acquires won, want 1", len(locks), n)
	}
	for lk := range locks {
		_ = lk.Release(context.Background())
	}
	for err := range errs {
		if !errors.Is(err, ports.ErrLocked) {
			t.Errorf("a losing acquire failed with %v, want ErrLocked", err)
		}
	}
}

// LockOfAGoneProcess checks what lockers that know the host's processes do:
// on one host, the lock of a process that is gone (gonePID, of a process of
// this host that has exited) is taken over at once, and a running holder's
// is not.
func LockOfAGoneProcess(t *testing.T, locker ports.ReleaseLocker, gonePID int) {
	t.Helper()
	ctx := context.Background()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	me := ports.LockHolder{User: "me", Host: host, PID: os.Getpid()}

	if _, err := locker.Acquire(ctx, "apps", "crashed", ports.LockHolder{User: "gone", Host: host, PID: gonePID}); err != nil {
		t.Fatal(err)
	}
	lk, err := locker.Acquire(ctx, "apps", "crashed", me)
	if err != nil {
		t.Fatalf("acquire the lock of a gone process: %v", err)
	}
	if prev, ok := lk.Recovered(); !ok || prev.User != "gone" {
		t.Errorf("Recovered = %+v, %v", prev, ok)
	}
	_ = lk.Release(ctx)

	running, err := locker.Acquire(ctx, "apps", "busy", me)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = running.Release(ctx) }()
	if _, err := locker.Acquire(ctx, "apps", "busy", ports.LockHolder{User: "other", Host: host, PID: gonePID}); !errors.Is(err, ports.ErrLocked) {
		t.Errorf("acquire of a running process's lock = %v, want ErrLocked", err)
	}
}
