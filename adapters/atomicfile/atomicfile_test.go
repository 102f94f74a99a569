package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "file")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "untouched" {
		t.Errorf("written through the symlink: target = %q", got)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("file = %v, %v; want a regular file with mode 0600", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(link); string(got) != "new" {
		t.Errorf("content = %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil, 0o644); err == nil {
		t.Error("a missing directory was not an error")
	}
}
