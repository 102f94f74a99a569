// Package lazyinit_test guards the patch of wazero in _patched (README.md): it
// is of the wazero go.mod requires, made from the upstream files it names, and
// leaves no wazero package initialiser to run at start-up.
package lazyinit_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/forkcheck"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

const (
	wazero = "github.com/tetratelabs/wazero"
	remake = "remake the patch as README.md says"
)

// upstream is what UPSTREAM records: the version and the sha256 of each file the patch replaces.
type upstream struct {
	version string
	files   map[string]string // path in the module: sha256
}

func readUpstream(t *testing.T) upstream {
	t.Helper()
	f, err := os.Open("UPSTREAM")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	u := upstream{files: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == wazero && len(fields) == 2:
			u.version = fields[1]
		case len(fields) == 2 && len(fields[0]) == sha256.Size*2:
			u.files[fields[1]] = fields[0]
		default:
			t.Fatalf("UPSTREAM: line %q is neither %q VERSION nor SHA256  PATH", sc.Text(), wazero)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if u.version == "" || len(u.files) == 0 {
		t.Fatal("UPSTREAM names no version or no file")
	}
	return u
}

// goModWazero is the version of wazero go.mod requires and its directory in the
// module cache, never the patched copy a workspace may put in its place.
func goModWazero(t *testing.T) (version, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", wazero)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", wazero, err, stderr.String())
	}
	var m struct{ Version, Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m.Version, m.Dir
}

func TestPatchIsOfGoModsWazero(t *testing.T) {
	u := readUpstream(t)
	version, dir := goModWazero(t)
	if version != u.version {
		t.Fatalf("go.mod requires wazero %s, the patch is of %s: %s", version, u.version, remake)
	}
	for file, want := range u.files {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("upstream %s: %v: %s", file, err, remake)
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("upstream %s is not the file the patch was made from (sha256 %x, UPSTREAM %s): %s", file, sum, want, remake)
		}
	}
}

// TestCopiesAreUpstreamsButMarkedHunks: outside its hunks every copy is upstream's file.
func TestCopiesAreUpstreamsButMarkedHunks(t *testing.T) {
	u := readUpstream(t)
	_, dir := goModWazero(t)
	var copies []string
	err := filepath.WalkDir("_patched", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			copies = append(copies, filepath.ToSlash(strings.TrimPrefix(p, "_patched"+string(filepath.Separator))))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range copies {
		if _, ok := u.files[file]; !ok {
			t.Errorf("_patched/%s is not in UPSTREAM: the build would not use it", file)
			continue
		}
		forkcheck.CheckFile(t, filepath.Join("_patched", file), filepath.Join(dir, file))
	}
	for file := range u.files {
		if !slices.Contains(copies, file) {
			t.Errorf("UPSTREAM names %s, which _patched lacks", file)
		}
	}
}

// initTasks are the wazero packages whose initialisers a program runs: those
// with an inittask, which is what GODEBUG=inittrace=1 lists (an empty init
// function has none).
func initTasks(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	var pkgs []string
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 3 && strings.HasPrefix(fields[2], wazero) {
			if pkg, ok := strings.CutSuffix(fields[2], "..inittask"); ok {
				pkgs = append(pkgs, strings.TrimPrefix(pkg, wazero+"/"))
			}
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// buildProbe builds testdata/probe (wazero's packages and nothing else) for
// goos/goarch, with the workspace gowork ("off": upstream's wazero).
func buildProbe(t *testing.T, gowork, goos, goarch string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "probe")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/probe")
	cmd.Env = prereq.WorkspaceEnv(gowork, "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the probe for %s/%s: %v\n%s", goos, goarch, err, out)
	}
	return bin
}

// TestNoInitialiserRuns builds the probe with the patch for every platform
// kubectl-chart ships (krew-manifest.yaml) and wants no wazero package with
// an initialiser, but on Windows the two README.md names; on this machine it
// runs it under GODEBUG=inittrace=1 too. Other platforms than this machine's
// are built only with KUBECTL_CHART_ALL_PLATFORMS=1 (each build compiles
// wazero again: minutes on a loaded machine, too much for every make test).
func TestNoInitialiserRuns(t *testing.T) {
	gowork, err := prereq.WazeroLazyInit()
	if err != nil {
		t.Fatal(err)
	}
	windows := []string{"internal/platform", "internal/sysfs"} // syscall.NewLazyDLL handles, a QueryPerformanceFrequency call
	for platform, want := range map[string][]string{
		"linux/amd64": nil, "linux/arm64": nil, "darwin/amd64": nil, "darwin/arm64": nil,
		"windows/amd64": windows, "windows/arm64": windows,
	} {
		goos, goarch, _ := strings.Cut(platform, "/")
		host := goos == runtime.GOOS && goarch == runtime.GOARCH
		if !host && os.Getenv("KUBECTL_CHART_ALL_PLATFORMS") != "1" {
			continue
		}
		t.Run(platform, func(t *testing.T) {
			bin := buildProbe(t, gowork, goos, goarch)
			if got := initTasks(t, bin); !slices.Equal(got, want) {
				t.Errorf("wazero packages with initialisers: %q, want %q", got, want)
			}
			if !host {
				return
			}
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
			trace, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("probe: %v\n%s", err, trace)
			}
			if !strings.Contains(string(trace), "init runtime @") {
				t.Fatalf("GODEBUG=inittrace=1 printed no trace:\n%s", trace)
			}
			for _, line := range strings.Split(string(trace), "\n") {
				if strings.HasPrefix(line, "init "+wazero) && !slices.Contains(want, strings.TrimPrefix(strings.Fields(line)[1], wazero+"/")) {
					t.Errorf("an initialiser runs: %s", line)
				}
			}
		})
	}
}

// TestUpstreamStillNeedsThePatch: without the patch wazero's initialisers run;
// when they no longer do, the patch can go.
func TestUpstreamStillNeedsThePatch(t *testing.T) {
	got := initTasks(t, buildProbe(t, "off", runtime.GOOS, runtime.GOARCH))
	if len(got) == 0 {
		t.Fatal("upstream's wazero runs no package initialiser: drop hack/wazero-lazyinit and its uses")
	}
	t.Logf("upstream's wazero packages with initialisers: %q", got)
}
