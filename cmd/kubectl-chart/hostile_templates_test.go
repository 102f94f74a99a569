//go:build linux

package main

import (
	"path/filepath"
	"testing"
)

// hostileTemplates gives template a chart whose template loops for ever
// without writing or calling anything (templates range over integers): the
// render timeout stops it.
func hostileTemplates(t *testing.T, bin string) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/x.yaml": "{{ range 100000000 }}{{ range 100000000 }}{{ end }}{{ end }}"})
	run := runHostile(t, bin, dir, "template", filepath.Join(dir, "c"), "--render-timeout", "1s")
	wantRefusal(t, run, "template: c/templates/x.yaml: render budget exceeded: rendering took longer than 1s (raise it with --render-timeout)"+
		"\n\nUse --debug flag to render out invalid YAML")
}
