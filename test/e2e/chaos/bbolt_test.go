//go:build e2e

package chaos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// bboltWriterEnv makes the test binary a writer of the bbolt file it names
// (see bboltWriter).
const bboltWriterEnv = "KUBECTL_CHART_CHAOS_BBOLT_WRITER"

const (
	writerNamespace = "chaos"
	writerRelease   = "writer"
)

// bboltWriter writes revisions to a bbolt file as upgrades do, under the
// file's release lock, until it is killed: lock; record revision N pending;
// supersede N-1; mark N deployed; unlock. Each write is reported on stdout
// once committed ("created N", "superseded N", "deployed N"). A revision left
// pending by a killed writer is marked failed first, as the next operation
// would.
func bboltWriter() int {
	ctx := context.Background()
	store := bbolt.New(os.Getenv(bboltWriterEnv), 0)
	locker := store.Locker(3*time.Second, ports.SystemClock{})
	holder := ports.LockHolder{User: "writer", Host: "chaos", PID: os.Getpid(), Command: "bbolt writer"}
	fail := func(err error) int {
		fmt.Printf("error %v\n", err)
		return 1
	}
	h, err := store.History(ctx, writerNamespace, writerRelease)
	if err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
		return fail(err)
	}
	var prev *release.Release
	for _, r := range h.Sorted() {
		if r.Info.Status.IsPending() {
			r.Info.Status = release.StatusFailed
			if err := store.Update(ctx, r); err != nil {
				return fail(err)
			}
			fmt.Printf("failed %d\n", r.Version)
		}
		if r.Info.Status == release.StatusDeployed {
			prev = r
		}
	}
	payload := strings.Repeat("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler\n---\n", 1500)
	for v := h.NextRevision(); ; v++ {
		lk, err := locker.Acquire(ctx, writerNamespace, writerRelease, holder)
		if err != nil {
			return fail(err)
		}
		now := release.Time{Time: time.Now()}
		rec := &release.Release{
			Name: writerRelease, Namespace: writerNamespace, Version: v,
			Manifest: fmt.Sprintf("# revision %d\n%s", v, payload),
			Info:     &release.Info{Status: release.StatusPendingUpgrade, Description: "Preparing upgrade", FirstDeployed: now, LastDeployed: now},
		}
		if err := store.Create(ctx, rec); err != nil {
			return fail(err)
		}
		fmt.Printf("created %d\n", v)
		if prev != nil {
			prev.Info.Status = release.StatusSuperseded
			if err := store.Update(ctx, prev); err != nil {
				return fail(err)
			}
			fmt.Printf("superseded %d\n", prev.Version)
		}
		rec.Info.Status, rec.Info.Description = release.StatusDeployed, "Upgrade complete"
		if err := store.Update(ctx, rec); err != nil {
			return fail(err)
		}
		fmt.Printf("deployed %d\n", v)
		if err := lk.Release(ctx); err != nil {
			return fail(err)
		}
		prev = rec
	}
}

// Writers of the bbolt store are killed with SIGKILL in the middle of their
// writes: afterwards the file opens, every revision a writer reported
// committed is there and reads back whole, and the dead writer's lock is
// taken over at once.
func TestBboltKillDuringWrites(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "releases.db")
	rng := rand.New(rand.NewPCG(seed, 2000))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	committed := map[int]string{} // revision -> last status reported
	for i := range pick(40, 200) {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), bboltWriterEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill once it writes, after a random part of a revision's writes.
		var first string
		select {
		case first = <-lines:
		case <-time.After(10 * time.Second):
		}
		delay := time.Duration(rng.Int64N(int64(15 * time.Millisecond)))
		time.Sleep(delay)
		killed := time.Now()
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		reported := []string{first}
		for l := range lines {
			reported = append(reported, l)
		}
		var problems []string
		for _, l := range reported {
			word, num, _ := strings.Cut(l, " ")
			switch word {
			case "created", "superseded", "deployed", "failed":
				n, _ := strconv.Atoi(num)
				committed[n] = word
			case "error":
				problems = append(problems, "the writer failed: "+l)
			case "":
			default:
				problems = append(problems, "the writer said: "+l)
			}
		}

		store := bbolt.New(path, 0)
		h, err := store.History(ctx, writerNamespace, writerRelease)
		if err != nil {
			t.Fatalf("trial %d: the file does not read back after a kill: %v", i, err)
		}
		h = h.Sorted()
		have := map[int]*release.Release{}
		for j, r := range h {
			have[r.Version] = r
			if r.Version != j+1 {
				problems = append(problems, "revisions are not 1..N: "+brief(h))
			}
			if !strings.HasPrefix(r.Manifest, fmt.Sprintf("# revision %d\n", r.Version)) || len(r.Manifest) < 50000 {
				problems = append(problems, fmt.Sprintf("revision %d does not read back whole", r.Version))
			}
		}
		lost := 0
		for n, status := range committed {
			r := have[n]
			switch {
			case r == nil:
				lost++
				problems = append(problems, fmt.Sprintf("revision %d (%s) is gone", n, status))
			case status == "deployed" && r.Info.Status != release.StatusDeployed && r.Info.Status != release.StatusSuperseded:
				problems = append(problems, fmt.Sprintf("revision %d was deployed, reads %s", n, r.Info.Status))
			}
		}
		deployed := 0
		for _, r := range h {
			if r.Info.Status == release.StatusDeployed {
				deployed++
			}
		}
		if deployed > 1 {
			problems = append(problems, "several revisions deployed: "+brief(h))
		}
		// The lock of the dead writer (this host, process gone) is taken over at once.
		lk, err := store.Locker(time.Minute, ports.SystemClock{}).Acquire(ctx, writerNamespace, writerRelease, ports.LockHolder{User: "verifier", Host: "chaos", PID: os.Getpid()})
		if err != nil {
			problems = append(problems, "the dead writer's lock is not taken over: "+err.Error())
		} else {
			_ = lk.Release(ctx)
		}
		took := time.Since(killed)
		for _, p := range problems {
			t.Errorf("trial %d (%s=%d): killed %s after its first write: %s", i, seedEnv, seed, delay, p)
		}
		trial("bbolt writer kill -9", len(problems) == 0, took, lost)
	}
	h, _ := bbolt.New(path, 0).History(ctx, writerNamespace, writerRelease)
	noteText("bbolt writer kill -9", fmt.Sprintf("%d revisions written", len(h)))
}

// Our binary with --storage bbolt, killed at random points of upgrades:
// the same command run again succeeds, and the file keeps every revision.
func TestBboltKillOperations(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	rel := "local"
	path := filepath.Join(t.TempDir(), "releases.db")
	local := []string{"KUBECTL_CHART_STORAGE=bbolt", "KUBECTL_CHART_BBOLT_PATH=" + path, "KUBECTL_CHART_LOCK_DURATION=3s"}
	rng := rand.New(rand.NewPCG(seed, 3000))
	ctx := context.Background()
	store := bbolt.New(path, 0)
	readHistory := func() release.History {
		h, err := store.History(ctx, ns, rel)
		if err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Fatalf("the file does not read back: %v", err)
		}
		return h.Sorted()
	}
	runLocal := func(args ...string) result {
		r := run(t, "", local, args...)
		if r.code != 0 {
			t.Fatalf("kubectl-chart %s: exit %d\n%s", strings.Join(args, " "), r.code, r.err)
		}
		return r
	}
	install := func(k int) []string {
		return []string{"upgrade", "--install", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("message=b%d", k), "--wait", "--timeout", "60s", "--history-max", "0"}
	}
	window := runLocal(install(0)...).took
	for i := 1; i <= pick(6, 24); i++ {
		args := install(i)
		before := readHistory()
		delay := time.Duration(rng.Float64() * 1.15 * float64(window))
		cmd := command("", local, args...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-time.After(delay):
		case <-done:
		}
		killed := time.Now()
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		runLocal(args...)
		took := time.Since(killed)
		h := readHistory()
		var problems []string
		lost := 0
		for _, r := range before {
			if !slices.ContainsFunc(h, func(x *release.Release) bool { return x.Version == r.Version }) {
				lost++
				problems = append(problems, fmt.Sprintf("revision %d is gone", r.Version))
			}
		}
		deployed := 0
		var current *release.Release
		for j, r := range h {
			if r.Version != j+1 {
				problems = append(problems, "revisions are not 1..N: "+brief(h))
			}
			if r.Info.Status.IsPending() {
				problems = append(problems, fmt.Sprintf("revision %d left %s", r.Version, r.Info.Status))
			}
			if r.Info.Status == release.StatusDeployed {
				deployed++
				current = r
			}
		}
		if deployed != 1 {
			problems = append(problems, "not one revision deployed: "+brief(h))
		}
		if current != nil {
			cm, err := clientset(t).CoreV1().ConfigMaps(ns).Get(ctx, rel+"-config", metav1.GetOptions{})
			if err != nil || cm.Data["message"] != manifestMessage(current.Manifest, rel+"-config") {
				problems = append(problems, fmt.Sprintf("live ConfigMap (%v) is not revision %d's", err, current.Version))
			}
		}
		for _, p := range problems {
			t.Errorf("trial %d (%s=%d): killed after %s: %s", i, seedEnv, seed, delay, p)
		}
		trial("kill -9 upgrade, bbolt store", len(problems) == 0, took, lost)
	}
}
