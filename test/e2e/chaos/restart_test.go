//go:build e2e

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
	// 100 objects: the upgrade's requests spread over a second or two.
	mustRun(t, "upgrade", "--install", rel, chartDir(), "-n", ns, "--set", hundred, "--wait", "--timeout", "2m", "--history-max", "0")
	for i := range pick(2, 8) {
		before := history(t, ns, rel)
		args := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("%s,message=r%d", hundred, i), "--wait", "--timeout", "2m", "--history-max", "0"}
		// The default lease (60s): a restart is shorter than it.
		p := start(t, "", nil, args...)
		if !waitPending(ns, rel, p, 30*time.Second) {
			r, _ := p.wait(time.Second)
			t.Fatalf("the upgrade never became pending: exit %d\n%s", r.code, r.err)
		}
		// When a phase starts (the one that writes most first), or at a
		// random point, for a random while beyond the restart itself.
		mark := restartMarks[i%len(restartMarks)]
		delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
		extra := time.Duration(rng.Int64N(int64(2 * time.Second)))
		if mark != "" {
			delay = 0
			for !strings.Contains(p.stderr.String(), mark) && !exited(p) {
				time.Sleep(2 * time.Millisecond)
			}
		}
		time.Sleep(delay)
		kill := i%2 == 1
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		down, err := c.Restart(ctx, "kube-apiserver", cluster.RestartOptions{Kill: kill, Down: extra})
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
		var outcome string
		switch {
		case r.code == 0 && latest.Info.Status == release.StatusDeployed:
			outcome = "completed"
		case r.code == 0:
			outcome = "succeeded, left " + string(latest.Info.Status)
			problems = append(problems, fmt.Sprintf("the upgrade succeeded but its revision is %s: %s", latest.Info.Status, brief(h)))
		case latest.Info.Status == release.StatusFailed:
			outcome = "failed, recorded failed"
		default:
			outcome = "failed, left " + string(latest.Info.Status)
			problems = append(problems, fmt.Sprintf("the upgrade failed (%s) and left its revision %s: %s", lastLines(r.err, 2), latest.Info.Status, brief(h)))
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
		at := fmt.Sprintf("%s after pending", delay.Round(time.Millisecond))
		if mark != "" {
			at = fmt.Sprintf("at %q", mark)
		}
		t.Logf("trial %d: kube-apiserver %s %s, down %s; upgrade %s (exit %d) %s after the restart began; history %s\n%s",
			i, signal, at, down.Round(10*time.Millisecond), outcome, r.code, ended.Round(10*time.Millisecond), brief(history(t, ns, rel)), lastLines(r.err, 3))
		for _, p := range problems {
			t.Errorf("trial %d (%s=%d): kube-apiserver %s: %s", i, seedEnv, seed, signal, p)
		}
		trial("kube-apiserver restart mid-upgrade", len(problems) == 0, took, lost, outcome, at)
		noteText("kube-apiserver restart mid-upgrade", fmt.Sprintf("%s down %s", signal, down.Round(100*time.Millisecond)))
	}
}

// restartMarks are where restarts land, in turn: when the upgrade starts
// applying its 100 objects, once it saw them ready (it then records the
// outcome), when its hook starts, and at a random point after pending.
var restartMarks = []string{"applied: ConfigMap", "ready: Deployment", ": running pre-upgrade hook", ""}

func exited(p *proc) bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
