//go:build e2e

package chaos

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// killCycle is the operations a lane of kill trials runs in turn, each on
// the state the one before left.
var killCycle = []string{"install", "upgrade", "test", "upgrade", "rollback", "uninstall"}

// opArgs is the command of an operation. Install is `upgrade --install`,
// the command that can simply be run again: plain `install` refuses, as
// Helm's does, a name whose first revision failed. --history-max 0 keeps
// every revision (the default, 10, prunes the oldest).
func opArgs(op, ns, rel string, k int) []string {
	switch op {
	case "install":
		return []string{"upgrade", "--install", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=i%d", k), "--wait", "--timeout", "60s", "--history-max", "0"}
	case "upgrade":
		return []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=u%d", k), "--wait", "--timeout", "60s", "--history-max", "0"}
	case "rollback":
		return []string{"rollback", rel, "-n", ns, "--wait", "--timeout", "60s", "--history-max", "0"}
	case "test":
		return []string{"test", rel, "-n", ns, "--timeout", "60s"}
	case "uninstall":
		return []string{"uninstall", rel, "-n", ns, "--wait", "--ignore-not-found"}
	}
	panic("unknown operation " + op)
}

// killMarks are progress lines (stderr) of each operation after which some
// trials kill, a few milliseconds later: the start of each phase, so that
// kills land in every one of them and not only in the longest.
var killMarks = map[string][]string{
	"install":   {"installing ", ": running pre-install hook", "applied: ConfigMap", "waiting for ", "ready: Deployment"},
	"upgrade":   {"upgrading ", ": running pre-upgrade hook", "applied: ConfigMap", "waiting for ", "ready: Deployment"},
	"rollback":  {"rolling ", ": running pre-rollback hook", "applied: ConfigMap", "waiting for ", "ready: Deployment"},
	"test":      {": running test hook", "applied: Job", "test hook succeeded"},
	"uninstall": {"deleting ", "deleted: ConfigMap", "deleted: ServiceAccount"},
}

// killPoint names where in an operation its progress output (stderr) says
// it was when killed.
func killPoint(progress string, completed bool) string {
	if completed {
		return "after its end"
	}
	point, inHook := "start (render, lock, history)", false
	for _, line := range strings.Split(progress, "\n") {
		switch {
		case strings.HasPrefix(line, "installing ") || strings.HasPrefix(line, "upgrading ") || strings.HasPrefix(line, "rolling "):
			point = "pending recorded"
		case strings.Contains(line, ": running ") && strings.HasSuffix(line, " hook"):
			point, inHook = "hook", true
		case strings.HasSuffix(line, " hook succeeded") || strings.HasSuffix(line, " hook failed"):
			inHook = false
			if strings.Contains(line, "test hook") {
				point = "record test results"
			}
		case !inHook && strings.HasPrefix(line, "applied: "):
			point = "apply"
		case strings.HasPrefix(line, "deleted: Job"):
			// A hook Job removed by its delete policy.
		case strings.HasPrefix(line, "deleting ") || strings.HasPrefix(line, "deleted: "):
			point = "delete"
		case strings.HasPrefix(line, "waiting for "):
			point = "wait"
		case strings.HasPrefix(line, "ready: Deployment"):
			point = "wait done, record outcome"
		}
	}
	return point
}

// prepare brings a release to the state an operation needs: deployed for
// upgrade, test and uninstall, with a revision to roll back to for rollback.
func prepare(t *testing.T, op, ns, rel string, k int) {
	t.Helper()
	h := history(t, ns, rel)
	if op == "install" {
		return
	}
	if h.LastDeployed() == nil {
		mustRun(t, opArgs("install", ns, rel, k)...)
	}
	if op == "rollback" && len(history(t, ns, rel)) < 2 {
		mustRun(t, opArgs("upgrade", ns, rel, k)...)
	}
}

// killAt starts an operation and kills it: after delay, or (mark not empty)
// a jitter after its progress shows mark. It reports whether the process
// was still running when killed and what it wrote.
func killAt(t *testing.T, args []string, delay time.Duration, mark string, jitter time.Duration) (*proc, bool) {
	t.Helper()
	p := start(t, "", shortLease, args...)
	if mark == "" {
		select {
		case <-time.After(delay):
		case <-p.done:
		}
		return p, p.kill()
	}
	deadline := time.After(time.Minute)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(p.stderr.String(), mark) {
		select {
		case <-p.done:
			return p, p.kill()
		case <-deadline:
			return p, p.kill()
		case <-tick.C:
		}
	}
	select {
	case <-time.After(jitter):
	case <-p.done:
	}
	return p, p.kill()
}

// Every operation is killed with SIGKILL at seeded random points spread over
// its whole run (from before the lock to after the outcome is recorded): a
// seeded coin picks, per trial, a random time within the operation's last
// run here, or a random few milliseconds after the start of one of its
// phases (so that short phases are hit too). After each
// kill the same command run again must succeed at once (the lock of a dead
// holder on this host is taken over immediately), recover what the kill left
// pending, keep every revision, leave exactly one deployed, and Helm v3 and
// v4 must read the history.
func TestKillAtRandomPoints(t *testing.T) {
	t.Parallel()
	lanes, perLane := pick(2, 4), pick(12, 30)

	// How long each operation takes here: timed kills are spread over it.
	durations := map[string]time.Duration{}
	ns := env.Namespace(t)
	for k, op := range killCycle {
		r := mustRun(t, opArgs(op, ns, "calib", k)...)
		durations[op] = max(durations[op], r.took)
	}
	t.Logf("operation times: %v", durations)

	for lane := range lanes {
		t.Run(fmt.Sprintf("lane%d", lane), func(t *testing.T) {
			t.Parallel()
			ns := env.Namespace(t)
			rel := "kill"
			rng := rand.New(rand.NewPCG(seed, uint64(lane)))
			// Timed kills are spread over the operation's last full run here.
			window := maps.Clone(durations)
			for k := range perLane {
				op := killCycle[k%len(killCycle)]
				prepare(t, op, ns, rel, lane*1000+k)
				args := opArgs(op, ns, rel, lane*1000+k)
				before := history(t, ns, rel)
				var (
					delay, jitter time.Duration
					mark          string
				)
				if rng.IntN(2) == 0 {
					delay = time.Duration(rng.Float64() * float64(window[op]))
				} else {
					marks := killMarks[op]
					mark = marks[rng.IntN(len(marks))]
					jitter = time.Duration(rng.Int64N(int64(15 * time.Millisecond)))
				}
				p, running := killAt(t, args, delay, mark, jitter)
				killed := time.Now()
				point := killPoint(p.stderr.String(), !running)
				left := history(t, ns, rel)
				pendingLeft := slices.ContainsFunc(left, func(r *release.Release) bool { return r.Info.Status.IsPending() })
				how := fmt.Sprintf("after %s", delay.Round(time.Millisecond))
				if mark != "" {
					how = fmt.Sprintf("%s after %q", jitter.Round(time.Millisecond), mark)
				}

				var problems []string
				lost := 0
				again, refusals, err := retryUntil(t, "", args...)
				took := time.Since(killed)
				if err == nil {
					window[op] = again.took
				}
				if err != nil {
					problems = append(problems, "the same command run again failed: "+err.Error())
					// What only a manual step would undo: undone here so
					// that the lane goes on.
					forget(t, ns, rel)
				} else {
					var rest []string
					lost, rest = atRest(t, ns, rel, before, op == "uninstall")
					problems = append(problems, rest...)
					if pendingLeft && !strings.Contains(again.err, "by an interrupted operation; marked failed") {
						problems = append(problems, "the pending revision's recovery was not reported:\n"+again.err)
					}
					if refusals > 0 {
						problems = append(problems, fmt.Sprintf("refused %d times before the lock of the dead holder was taken over", refusals))
					}
					if op == "test" && len(history(t, ns, rel)) != len(before) {
						problems = append(problems, "test changed the number of revisions")
					}
				}
				t.Logf("trial %d: %s killed %s at %q; history %q -> %q -> %q; recovered in %s",
					k, op, how, point, brief(before), brief(left), brief(history(t, ns, rel)), took.Round(time.Millisecond))
				for _, p := range problems {
					t.Errorf("trial %d (%s=%d, lane %d): %s killed %s at %q (history then %q): %s\nrepeat: kubectl chart %s",
						k, seedEnv, seed, lane, op, how, point, brief(left), p, strings.Join(args, " "))
				}
				note := ""
				if pendingLeft {
					note = "pending left"
				}
				trial("kill -9 "+op, len(problems) == 0, took, lost, "at "+point, note)
			}
		})
	}
}
