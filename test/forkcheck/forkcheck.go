// Package forkcheck checks that a copy of upstream code (domain/internal/yamlv2,
// jsonschema, tmplparse) is upstream's bytes apart from its marked hunks, so that
// what was changed, and only that, is visible and carried over on an upgrade.
//
// A hunk is a run of whole lines from a Begin line to an End line (markers
// included, indentation ignored); what follows Begin on its line says why. It
// holds what replaces upstream's lines at that place, nothing when they were
// removed. Outside the hunks a copy must be upstream's text, run for run, in
// upstream's order.
package forkcheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The markers of a hunk, as comments of the copied file's language.
const (
	Begin = "// kubectl-chart: begin"
	End   = "// kubectl-chart: end"
)

// run is a stretch of a copy outside its hunks; line is its first line's number.
type run struct {
	line int
	text string
}

// runs splits text into the stretches outside its hunks: one more than there are
// hunks, empty where a hunk starts or ends the text or two hunks meet.
func runs(text string) ([]run, error) {
	var out []run
	cur := run{line: 1}
	var b strings.Builder
	inHunk, hunkLine := false, 0
	for n, line := range strings.SplitAfter(text, "\n") {
		marker := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(marker, Begin):
			if inHunk {
				return nil, fmt.Errorf("line %d: hunk begins inside the hunk of line %d", n+1, hunkLine)
			}
			cur.text = b.String()
			out = append(out, cur)
			b.Reset()
			inHunk, hunkLine = true, n+1
		case marker == End:
			if !inHunk {
				return nil, fmt.Errorf("line %d: hunk ends where none began", n+1)
			}
			inHunk, cur = false, run{line: n + 2}
		case !inHunk:
			b.WriteString(line)
		}
	}
	if inHunk {
		return nil, fmt.Errorf("line %d: hunk never ends", hunkLine)
	}
	cur.text = b.String()
	return append(out, cur), nil
}

// Compare reports where a copy differs from upstream outside its hunks, nil when
// it does not: upstream must be the copy's runs, in order, with any text between
// them (what the hunks replace), starting with the first and ending with the last.
func Compare(copied, upstream string) error {
	rs, err := runs(copied)
	if err != nil {
		return err
	}
	first, last := rs[0], rs[len(rs)-1]
	if len(rs) == 1 {
		if copied != upstream {
			return differs(first, upstream)
		}
		return nil
	}
	if !strings.HasPrefix(upstream, first.text) {
		return differs(first, upstream)
	}
	rest := upstream[len(first.text):]
	for _, r := range rs[1 : len(rs)-1] {
		i := strings.Index(rest, r.text)
		if i < 0 {
			return differs(r, rest)
		}
		rest = rest[i+len(r.text):]
	}
	if !strings.HasSuffix(rest, last.text) {
		return differs(last, rest)
	}
	return nil
}

// differs names the first line of r that is not upstream's: the line after the
// longest head of r found in upstream.
func differs(r run, upstream string) error {
	lines := strings.SplitAfter(r.text, "\n")
	head := 0
	for head < len(lines) && strings.Contains(upstream, strings.Join(lines[:head+1], "")) {
		head++
	}
	if head == len(lines) {
		return fmt.Errorf("line %d: the %d lines from here are upstream's but not where upstream has them (a change at the start or end of the file not marked?)", r.line, len(lines))
	}
	return fmt.Errorf("line %d: %q differs from upstream outside a marked hunk", r.line+head, strings.TrimSuffix(lines[head], "\n"))
}

// Dir is where the go command finds the package importPath: the module cache
// for a dependency (downloaded if need be), GOROOT for the standard library.
func Dir(t testing.TB, importPath string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", importPath)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", importPath, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// CheckDir compares every file under the test's package directory with the file
// of the same path under upstreamDir, except tests, README.md and own: the
// copy's own files (licences kept from elsewhere: CheckFile).
func CheckDir(t *testing.T, upstreamDir string, own ...string) {
	t.Helper()
	skip := map[string]bool{"README.md": true}
	for _, name := range own {
		skip[name] = true
	}
	checked := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || skip[filepath.ToSlash(p)] || strings.HasSuffix(p, "_test.go") {
			return err
		}
		CheckFile(t, p, filepath.Join(upstreamDir, p))
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no copied file found")
	}
}

// CheckFile compares the copy at path with upstream's file.
func CheckFile(t *testing.T, path, upstreamPath string) {
	t.Helper()
	copied, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := os.ReadFile(upstreamPath)
	if err != nil {
		t.Errorf("%s: no upstream file: %v", path, err)
		return
	}
	if err := Compare(string(copied), string(upstream)); err != nil {
		t.Errorf("%s (upstream %s): %v", path, upstreamPath, err)
	}
}
