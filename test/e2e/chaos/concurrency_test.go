//go:build e2e

package chaos

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// upgraded is one upgrade that succeeded.
type upgraded struct {
	proc, n  int
	message  string
	revision int
	// recorded is when the revision was recorded pending (its phase event).
	recorded time.Time
	refusals int
	waited   time.Duration
}

var revisionPhase = regexp.MustCompile(`to revision (\d+)`)

// events reads the phase and result events of `-o json`.
func events(out string) (revision int, recorded time.Time, err error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Time     time.Time `json:"time"`
			Type     string    `json:"type"`
			Message  string    `json:"message"`
			Revision int       `json:"revision"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "phase":
			if m := revisionPhase.FindStringSubmatch(ev.Message); m != nil && recorded.IsZero() {
				recorded = ev.Time
			}
		case "result":
			revision = ev.Revision
		}
	}
	if revision == 0 || recorded.IsZero() {
		return 0, time.Time{}, errors.New("no phase and result events in:\n" + out)
	}
	return revision, recorded, nil
}

// Four processes upgrade one release with different values, each until its
// upgrades went through. Exactly one operation runs at a time: the others are
// refused (the lock, or the pending revision) and try again; every revision
// is accounted for, recorded pending only after the one before it was
// deployed, and the live state is the last revision's.
func TestConcurrentUpgrades(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	rel := "race"
	procs, per := 4, pick(5, 25)
	mustRun(t, opArgs("install", ns, rel, 0)...)

	var (
		mu       sync.Mutex
		done     []upgraded
		failures []string
		locked   int
		pending  int
	)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(100+p)))
			for n := range per {
				u := upgraded{proc: p, n: n, message: fmt.Sprintf("p%d-%d", p, n)}
				begin := time.Now()
				for {
					cmd := command("", shortLease, "upgrade", rel, chartDir(), "-n", ns, "--set", "message="+u.message, "--wait", "--timeout", "60s", "--history-max", "0", "--json-events")
					var stderr strings.Builder
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					r := result{out: string(out), err: stderr.String()}
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						r.code = ee.ExitCode()
					} else if err != nil {
						mu.Lock()
						failures = append(failures, err.Error())
						mu.Unlock()
						return
					}
					if r.code == 0 {
						rev, at, err := events(r.out)
						mu.Lock()
						if err != nil {
							failures = append(failures, err.Error())
						}
						u.revision, u.recorded, u.waited = rev, at, time.Since(begin)
						done = append(done, u)
						mu.Unlock()
						break
					}
					mu.Lock()
					switch {
					case strings.Contains(r.err+r.out, lockedMsg):
						locked++
					case strings.Contains(r.err+r.out, inProgressMsg):
						pending++
					default:
						failures = append(failures, fmt.Sprintf("process %d upgrade %d: exit %d: %s%s", p, n, r.code, r.err, r.out))
						mu.Unlock()
						return
					}
					mu.Unlock()
					u.refusals++
					time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}

	h := history(t, ns, rel)
	var problems []string
	if want := 1 + procs*per; len(h) != want || len(done) != procs*per {
		problems = append(problems, fmt.Sprintf("%d revisions and %d successful upgrades, want %d and %d: %s", len(h), len(done), want, procs*per, brief(h)))
	}
	sort.Slice(done, func(i, j int) bool { return done[i].revision < done[j].revision })
	byRevision := map[int]*release.Release{}
	for _, r := range h {
		byRevision[r.Version] = r
	}
	for i, u := range done {
		r := byRevision[u.revision]
		switch {
		case r == nil:
			problems = append(problems, fmt.Sprintf("upgrade %q reported revision %d, which is not in the history", u.message, u.revision))
			continue
		case i > 0 && done[i-1].revision == u.revision:
			problems = append(problems, fmt.Sprintf("upgrades %q and %q both reported revision %d", done[i-1].message, u.message, u.revision))
		case manifestMessage(r.Manifest, rel+"-config") != u.message:
			problems = append(problems, fmt.Sprintf("revision %d holds %q, its upgrade set %q", u.revision, manifestMessage(r.Manifest, rel+"-config"), u.message))
		}
		if u.revision != len(h) && r.Info.Status != release.StatusSuperseded {
			problems = append(problems, fmt.Sprintf("revision %d is %s, want superseded", u.revision, r.Info.Status))
		}
		// One operation at a time: a revision is recorded pending only once
		// the one before it was deployed.
		if prev := byRevision[u.revision-1]; prev != nil && u.recorded.Before(prev.Info.LastDeployed.Time) {
			problems = append(problems, fmt.Sprintf("revision %d was recorded pending at %s, before revision %d was deployed at %s",
				u.revision, u.recorded.Format(time.RFC3339Nano), prev.Version, prev.Info.LastDeployed.Format(time.RFC3339Nano)))
		}
	}
	lost, rest := atRest(t, ns, rel, nil, false)
	problems = append(problems, rest...)
	if len(done) > 0 {
		if last := done[len(done)-1]; manifestMessage(h[len(h)-1].Manifest, rel+"-config") != last.message {
			problems = append(problems, "the last revision is not the last upgrade's")
		}
	}
	for _, p := range problems {
		t.Errorf("(%s=%d) %s", seedEnv, seed, p)
	}
	var worst time.Duration
	for _, u := range done {
		worst = max(worst, u.waited)
	}
	scenario := fmt.Sprintf("%d processes x %d upgrades", procs, per)
	for range procs * per {
		trial(scenario, len(problems) == 0 && len(failures) == 0, worst, lost)
	}
	noteText(scenario, fmt.Sprintf("refused: lock %d, in progress %d", locked, pending))
	t.Logf("%d upgrades, %d refused by the lock and %d by a pending revision; longest wait %s", len(done), locked, pending, worst.Round(10*time.Millisecond))
}

// Helm v4 upgrades the release while we do: one of the two is refused
// (Helm: another operation is in progress; us: the pending revision or the
// lock), or they ran one after the other; nothing is clobbered.
func TestHelmRacesUs(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	rel := "helmrace"
	mustRun(t, opArgs("install", ns, rel, 0)...)
	const helmVersion = "v4.3.1"
	orders := []string{"ours first", "helm first", "together"}
	for i := range pick(3, 12) {
		order := orders[i%len(orders)]
		before := history(t, ns, rel)
		ours := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=o%d", i), "--wait", "--timeout", "60s", "--history-max", "0"}
		// Helm applies server-side as the release's records say, and takes
		// over the fields our field manager holds.
		theirs := []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=h%d", i), "--force-conflicts", "--timeout", "60s", "--history-max", "0"}
		hc := helm(t, helmVersion, theirs...)
		var helmOut strings.Builder
		hc.Stdout, hc.Stderr = &helmOut, &helmOut
		var r result
		var helmErr error
		begin := time.Now()
		switch order {
		case "ours first":
			p := start(t, "", shortLease, ours...)
			if !waitPending(ns, rel, p, 30*time.Second) {
				t.Fatalf("our upgrade never became pending")
			}
			helmErr = hc.Run()
			r, _ = p.wait(2 * time.Minute)
		case "helm first":
			if err := hc.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitPendingFunc(ns, rel, 30*time.Second) {
				t.Fatalf("Helm's upgrade never became pending:\n%s", helmOut.String())
			}
			r = run(t, "", shortLease, ours...)
			helmErr = hc.Wait()
		case "together":
			p := start(t, "", shortLease, ours...)
			helmErr = hc.Run()
			r, _ = p.wait(2 * time.Minute)
		}
		took := time.Since(begin)
		var problems []string
		succeeded := 0
		outcome := []string{}
		if r.code == 0 {
			succeeded++
			outcome = append(outcome, "ours ok")
		} else if r.refused() || strings.Contains(r.err, "already exists") {
			outcome = append(outcome, "ours refused")
		} else {
			problems = append(problems, fmt.Sprintf("our upgrade failed otherwise: %s", r.err))
		}
		if helmErr == nil {
			succeeded++
			outcome = append(outcome, "helm ok")
		} else if strings.Contains(helmOut.String(), inProgressMsg) || strings.Contains(helmOut.String(), "already exists") {
			outcome = append(outcome, "helm refused")
		} else {
			problems = append(problems, fmt.Sprintf("Helm's upgrade failed otherwise: %v\n%s", helmErr, helmOut.String()))
		}
		switch order {
		case "ours first":
			if helmErr == nil || !strings.Contains(helmOut.String(), inProgressMsg) || r.code != 0 {
				problems = append(problems, "while our upgrade ran, Helm's was not refused as in progress (or ours failed)")
			}
		case "helm first":
			if helmErr != nil || r.code == 0 || !strings.Contains(r.err, inProgressMsg) {
				problems = append(problems, "while Helm's upgrade ran, ours was not refused as in progress (or Helm's failed)")
			}
		}
		if succeeded == 0 {
			problems = append(problems, "neither upgrade went through")
		}
		h := history(t, ns, rel)
		if len(h) != len(before)+succeeded {
			problems = append(problems, fmt.Sprintf("%d upgrades went through but the history grew from %s to %s", succeeded, brief(before), brief(h)))
		}
		lost, rest := atRest(t, ns, rel, before, false)
		problems = append(problems, rest...)
		t.Logf("trial %d (%s): %s; history %s", i, order, strings.Join(outcome, ", "), brief(h))
		for _, p := range problems {
			t.Errorf("trial %d (%s, %s=%d): %s", i, order, seedEnv, seed, p)
		}
		trial("helm v4 upgrade racing ours", len(problems) == 0, took, lost, order+": "+strings.Join(outcome, ", "))
	}
}

// waitPendingFunc polls until the release has a pending revision.
func waitPendingFunc(ns, name string, timeout time.Duration) bool {
	return waitPending(ns, name, &proc{done: make(chan struct{})}, timeout)
}
