//go:build linux

package main

import (
	"path/filepath"
	"testing"
)

// hostileTemplates gives template charts whose one template would loop for
// ever, overflow the stack or take time and memory exponential in its size:
// each is refused, under the memory cap, in the words of its case.
func hostileTemplates(t *testing.T, bin string) {
	const selfDict = `{{ $d := dict }}{{ $_ := set $d "self" $d }}`
	const debugHint = "\n\nUse --debug flag to render out invalid YAML"
	for name, tc := range map[string]struct {
		text string
		args []string
		want string
	}{
		// Templates range over integers: the loop writes and calls nothing.
		"an empty loop for ever": {text: "{{ range 100000000 }}{{ range 100000000 }}{{ end }}{{ end }}",
			args: []string{"--render-timeout", "1s"},
			want: "template: c/templates/x.yaml: render budget exceeded: rendering took longer than 1s (raise it with --render-timeout)"},
		// fmt would recurse until the stack overflows (Helm crashes).
		"printing a dict that contains itself": {text: selfDict + "{{ $d }}",
			want: "template: c/templates/x.yaml:1:47: output: value contains itself (a cycle via map[string]interface {})"},
		"toString of a dict that contains itself": {text: selfDict + "{{ toString $d }}",
			want: "template: c/templates/x.yaml:1:47: toString: value contains itself (a cycle via map[string]interface {})"},
		// One dict twice at each of 60 levels: 2^60 leaves (Helm runs out of memory).
		"toYaml of an exponential shared dict": {
			text: `{{ $b := dict "v" "x" }}{{ range until 60 }}{{ $b = dict "x" $b "y" $b }}{{ end }}{{ toYaml $b }}`,
			want: "template: c/templates/x.yaml:1:85: render budget exceeded: toYaml would build a value of more than 268435456 bytes (raise it with --render-max-value-bytes)"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
				"c/templates/x.yaml": tc.text})
			run := runHostile(t, bin, dir, append([]string{"template", filepath.Join(dir, "c")}, tc.args...)...)
			wantRefusal(t, run, tc.want+debugHint)
		})
	}
}
