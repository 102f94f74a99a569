package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// The API server of the control plane is stopped (SIGTERM or SIGKILL) and
// started again in the middle of an upgrade, after its revision is recorded
// pending: the upgrade either completes or fails with its revision recorded
// failed, never left pending; the same command run again converges.
//
// Not parallel: the other tests of the package wait while the API server is
// down.
func TestAPIServerRestartDuringUpgrade(t *testing.T) {
	c := env.Cluster()
	if c == nil {
		t.Skipf("the control plane of $%s is not this test's to restart", cluster.KubeconfigEnv)
	}
	ns := env.Namespace(t)
	rel := "restart"
	rng := rand.New(rand.NewPCG(seed, 1000))
	mustRun(t, opArgs("install", ns, rel, 0)...)
	for i := range pick(2, 6) {
		before := history(t, ns, rel)
		args := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=r%d", i), "--wait", "--timeout", "2m", "--history-max", "0"}
		// The default lease (60s): a restart is shorter than it.
		p := start(t, "", nil, args...)
		if !waitPending(ns, rel, p, 30*time.Second) {
			r, _ := p.wait(time.Second)
			t.Fatalf("the upgrade never became pending: exit %d\n%s", r.code, r.err)
		}
		delay := time.Duration(rng.Int64N(int64(600 * time.Millisecond)))
		time.Sleep(delay)
		kill := i%2 == 1
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		down, err := c.Restart(ctx, "kube-apiserver", cluster.RestartOptions{Kill: kill})
		cancel()
		if err != nil {
			t.Fatalf("restart kube-apiserver: %v", err)
		}
		r, ok := p.wait(3 * time.Minute)
		if !ok {
			t.Fatalf("the upgrade did not end within 3 minutes of the restart:\n%s", p.stderr.String())
		}
		ended := time.Since(begin)
		h := history(t, ns, rel)
		var problems []string
		latest := h[len(h)-1]
		outcome := "completed"
		switch {
		case r.code == 0 && latest.Info.Status != release.StatusDeployed:
			problems = append(problems, fmt.Sprintf("the upgrade succeeded but its revision is %s: %s", latest.Info.Status, brief(h)))
		case r.code != 0 && latest.Info.Status != release.StatusFailed:
			problems = append(problems, fmt.Sprintf("the upgrade failed (%s) and left its revision %s: %s", firstLine(r.err), latest.Info.Status, brief(h)))
		case r.code != 0:
			outcome = "failed, recorded failed"
		}
		took := ended
		if r.code != 0 {
			again, _ := retryUntilOK(t, "", args...)
			took = time.Since(begin)
			_ = again
		}
		lost, rest := atRest(t, ns, rel, before, false)
		problems = append(problems, rest...)
		signal := "SIGTERM"
		if kill {
			signal = "SIGKILL"
		}
		t.Logf("trial %d: kube-apiserver %s %s after pending, down %s; upgrade %s (exit %d) in %s; history %s",
			i, signal, delay.Round(time.Millisecond), down.Round(10*time.Millisecond), outcome, r.code, ended.Round(10*time.Millisecond), brief(history(t, ns, rel)))
		for _, p := range problems {
			t.Errorf("trial %d (%s=%d): kube-apiserver %s: %s", i, seedEnv, seed, signal, p)
		}
		trial("kube-apiserver restart mid-upgrade", len(problems) == 0, took, lost, outcome)
		noteText("kube-apiserver restart mid-upgrade", fmt.Sprintf("%s down %s", signal, down.Round(100*time.Millisecond)))
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
