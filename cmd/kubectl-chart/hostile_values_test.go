//go:build linux

package main

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
)

// hostileValues gives template --set flags that would grow lists to gigabytes and
// --set-file values that never end or are too large.
func hostileValues(t *testing.T, bin string) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"})
	chart := filepath.Join(dir, "c")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(dir, "big"), 6<<20)
	manySets := []string{"template", chart}
	for i := range 12000 {
		manySets = append(manySets, "--set", fmt.Sprintf("a%d[65536]=x", i))
	}
	tests := map[string]struct {
		args []string
		want string
	}{
		"12,000 lists of 65,537 items": {
			args: manySets,
			want: `failed parsing --set data: key "a15": lists would hold more than the maximum supported total of 1048576 items`,
		},
		"--set-file /dev/zero": {
			args: []string{"template", chart, "--set-file", "a=/dev/zero"},
			want: "failed parsing --set-file data: --set-file /dev/zero: not a regular file",
		},
		"--set-file FIFO": {
			args: []string{"template", chart, "--set-file", "a=" + fifo},
			want: "failed parsing --set-file data: --set-file " + fifo + ": not a regular file",
		},
		"--set-file 6 MB": {
			args: []string{"template", chart, "--set-file", "a=" + filepath.Join(dir, "big")},
			want: "failed parsing --set-file data: --set-file " + filepath.Join(dir, "big") + " is larger than the maximum size 5242880",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			wantRefusal(t, runHostile(t, bin, dir, tt.args...), tt.want)
		})
	}
}
