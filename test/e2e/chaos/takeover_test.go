//go:build e2e

package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// takenOverAt reads when an operation took a dead holder's lock over from
// its `-o json` events.
func takenOverAt(out string) (time.Time, bool) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Time    time.Time `json:"time"`
			Type    string    `json:"type"`
			Message string    `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "recovered" && strings.Contains(ev.Message, "took over the lock") {
			return ev.Time, true
		}
	}
	return time.Time{}, false
}

// How long after an operation is killed with SIGKILL the next one gets the
// release's lock: on the same host at once (the holder's process is gone);
// from another host (another boot id) once the lease expires, at most its
// duration after its last renewal. Measured for the README.
//
// Not parallel: it measures time.
func TestTakeoverTime(t *testing.T) {
	ns := env.Namespace(t)
	rel := "takeover"
	rng := rand.New(rand.NewPCG(seed, 4000))
	mustRun(t, opArgs("install", ns, rel, 0)...)
	leases := clientset(t).CoordinationV1().Leases(ns)
	type measure struct {
		name  string
		lease time.Duration
	}
	trials := []measure{}
	for range pick(3, 8) {
		trials = append(trials, measure{"same host", 3 * time.Second}, measure{"another host", 3 * time.Second})
	}
	if full {
		trials = append(trials, measure{"another host", lock.DefaultDuration})
	}
	for i, m := range trials {
		before := history(t, ns, rel)
		// A Deployment that never becomes ready: the upgrade holds its lock
		// until it is killed.
		stuck := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("stuck=true,message=t%d", i), "--wait", "--timeout", "5m", "--history-max", "0"}
		p := start(t, "", []string{fmt.Sprintf("KUBECTL_CHART_LOCK_DURATION=%s", m.lease)}, stuck...)
		if !waitPending(ns, rel, p, 30*time.Second) {
			r, _ := p.wait(time.Second)
			t.Fatalf("the upgrade never became pending: exit %d\n%s", r.code, r.err)
		}
		// Kill at a random point of the renewal period (a third of the lease).
		time.Sleep(time.Duration(rng.Int64N(int64(m.lease / 3))))
		if _, err := leases.Get(context.Background(), lock.LeaseName(rel), metav1.GetOptions{}); err != nil {
			t.Fatalf("no lease while the upgrade runs: %v", err)
		}
		killed := time.Now()
		p.kill()

		next := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=n%d", i), "--wait", "--timeout", "60s", "--history-max", "0"}
		var took time.Duration
		switch m.name {
		case "same host":
			r := mustRun(t, append(next, "--json-events")...)
			at, ok := takenOverAt(r.out)
			if !ok {
				t.Fatalf("the next upgrade did not take the lock over:\n%s", r.out)
			}
			took = at.Sub(killed)
		case "another host":
			// A holder on another machine cannot tell that the process is
			// gone: it waits for the lease to expire.
			locker, err := lock.New(env.Config(), m.lease)
			if err != nil {
				t.Fatal(err)
			}
			elsewhere := locker.WithHost("another-boot", func(int) bool { return true })
			var lk ports.Lock
			for {
				lk, err = elsewhere.Acquire(context.Background(), ns, rel, ports.LockHolder{User: "elsewhere", Host: "other", PID: 1})
				var locked *ports.LockedError
				if errors.As(err, &locked) {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			took = time.Since(killed)
			if _, recovered := lk.Recovered(); !recovered {
				t.Error("the lease was not reported taken over")
			}
			_ = lk.Release(context.Background())
			// The revision the killed upgrade left pending belongs to an
			// operation whose end nothing proved: the next one says so, and
			// --recover-pending recovers it.
			if r := run(t, "", shortLease, next...); r.code == 0 || !strings.Contains(r.err, inProgressMsg) {
				t.Errorf("after another host took the lock over, the pending revision was not reported: exit %d\n%s", r.code, r.err)
			}
			mustRun(t, append(next, "--recover-pending")...)
		}
		lost, problems := atRest(t, ns, rel, before, false)
		if _, err := leases.Get(context.Background(), lock.LeaseName(rel), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("lease after the next upgrade: %v", err))
		}
		for _, p := range problems {
			t.Errorf("trial %d (%s): %s", i, m.name, p)
		}
		scenario := fmt.Sprintf("lock takeover after kill -9, %s (%s lease)", m.name, m.lease)
		trial(scenario, len(problems) == 0, took, lost)
		t.Logf("trial %d: %s, lease %s: taken over %s after the kill", i, m.name, m.lease, took.Round(time.Millisecond))
	}
}
