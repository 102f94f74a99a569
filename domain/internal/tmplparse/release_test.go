package tmplparse

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// copiedRelease is the Go release lex.go and parse.go are a copy of; their build
// constraints name it too.
const copiedRelease = "go1.26"

// otherRelease is a Go release the copy is not of, which the go command fetches
// from the module proxy (about 80 MB, once) to build this package with.
const otherRelease = "go1.27.3"

// TestActiveParser: the copy is built by the release it is of, and only by it.
func TestActiveParser(t *testing.T) {
	v := runtime.Version()
	if want := strings.HasPrefix(v, copiedRelease+".") || v == copiedRelease; forked != want {
		t.Fatalf("built by %s, the copy of %s's parser is used: %v, want %v", v, copiedRelease, forked, want)
	}
	t.Logf("%s: copy of %s's parser used: %v", v, copiedRelease, forked)
}

// TestFallbackOnOtherRelease builds and tests this package with another Go
// release: it must compile and use text/template/parse (fallback.go).
func TestFallbackOnOtherRelease(t *testing.T) {
	if !forked {
		t.Skip("this build is the fallback: TestActiveParser checks it")
	}
	if testing.Short() {
		t.Skip("builds with " + otherRelease + ", fetched once from the module proxy")
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run=^TestActiveParser$", ".")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+otherRelease)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test with %s: %v\n%s", otherRelease, err, out)
	}
	if want := otherRelease + ": copy of " + copiedRelease + "'s parser used: false"; !strings.Contains(string(out), want) {
		t.Fatalf("go test with %s does not say %q:\n%s", otherRelease, want, out)
	}
}
