//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// hostileTemplates gives template charts whose one template would loop for
// ever, overflow the stack or take time and memory exponential in its size:
// each is refused, under the memory cap, in the words of its case.
func hostileTemplates(t *testing.T, bin string) {
	const selfDict = `{{ $d := dict }}{{ $_ := set $d "self" $d }}`
	const debugHint = "\n\nUse --debug flag to render out invalid YAML"
	const deepDict = `{{ $d := dict }}{{ range until 1000000 }}{{ $d = dict "a" $d }}{{ end }}`
	for name, tc := range map[string]struct {
		text string
		args []string
		want string
		// wantOut, when set, is a render that must finish: the start of its output,
		// and at least how many bytes it writes.
		wantOut      string
		wantOutBytes int
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
		// The unbounded templates, each stopped by the limit it meets.
		"tpl that renders itself": {text: `{{ define "a" }}{{ tpl "{{ include \"a\" . }}" . }}{{ end }}{{ include "a" . }}`,
			want: "template: c/templates/x.yaml:1:63: render budget exceeded: include calls nested deeper than 2000 (raise it with --render-max-depth)"},
		"until 1e8": {text: `{{ until 100000000 | len }}`,
			want: "template: c/templates/x.yaml:1:3: render budget exceeded: until would build a value of 800000000 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
		"repeat 3e9": {text: `{{ repeat 3000000000 "x" }}`,
			want: "template: c/templates/x.yaml:1:3: render budget exceeded: repeat would build a value of 3000000000 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
		"randAlpha 2e9": {text: `{{ randAlpha 2000000000 }}`,
			want: "template: c/templates/x.yaml:1:3: render budget exceeded: randAlpha would build a value of 2000000000 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
		"an include fan-out of 1e8 calls": {
			text: `{{ define "f" }}{{ range until 10000 }}{{ include "g" . }}{{ end }}{{ end }}{{ define "g" }}{{ range until 10000 }}{{ include "h" . }}{{ end }}{{ end }}{{ define "h" }}{{ end }}{{ include "f" . }}`,
			args: []string{"--render-timeout", "3s"},
			want: "template: c/templates/x.yaml:1:180: render budget exceeded: rendering took longer than 3s (raise it with --render-timeout)"},
		// A million-deep dict (Helm's encoders overflow the stack): toYaml and toJson
		// print "" as Helm's do for what they cannot encode, mustToJson says why.
		"encoders of a million-deep dict": {text: "x: " + deepDict + "{{ toYaml $d | len }}{{ toJson $d | len }}",
			wantOut: "---\n# Source: c/templates/x.yaml\nx: 00\n"},
		"mustToJson of a million-deep dict": {text: "x: " + deepDict + "{{ mustToJson $d }}",
			want: `template: c/templates/x.yaml:1:78: executing "c/templates/x.yaml" at <mustToJson $d>: error calling mustToJson: exceeded max depth of 100000`},
		// 50 MB of output finishes under the cap, as in Helm.
		"50 MB of output": {text: "x: |{{ range until 500000 }}\n  " + strings.Repeat("x", 98) + "{{ end }}",
			wantOut: "---\n# Source: c/templates/x.yaml\nx: |\n  xxx", wantOutBytes: 50_000_000},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
				"c/templates/x.yaml": tc.text})
			run := runHostile(t, bin, dir, append([]string{"template", filepath.Join(dir, "c")}, tc.args...)...)
			if tc.wantOut == "" {
				wantRefusal(t, run, tc.want+debugHint)
				return
			}
			if run.exit != 0 || !strings.HasPrefix(run.stdout, tc.wantOut) || len(run.stdout) < tc.wantOutBytes {
				t.Fatalf("exit %d, %d bytes of output starting %.80q, stderr %q; want exit 0 and at least %d bytes starting %q",
					run.exit, len(run.stdout), run.stdout, run.stderr, tc.wantOutBytes, tc.wantOut)
			}
		})
	}
}
