package generator

import (
	"fmt"
	"strings"
)

// PluginsDir is where a case's Helm 4 post-renderer plugins live, relative to
// its working directory; the runner points HELM_PLUGINS at it.
const PluginsDir = "plugins"

// postRenderers are the post-renderers a template case may run: shell
// scripts reading the rendered stream on stdin. Some return it changed (hooks
// dropped, added, turned into resources, documents regrouped or duplicated),
// some break it (malformed YAML, documents without kind or that are not
// mappings, nothing, a blank line) and one fails.
var postRenderers = []struct{ name, script string }{
	{"identity", "cat\n"},
	{"add-docs", `cat
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added-hook\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: "-1"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n'
`},
	{"drop-hooks", `buf=""
emit() {
	case "$buf" in *helm.sh/hook*) ;; *) printf '%s' "$buf" ;; esac
	buf=""
}
while IFS= read -r line || [ -n "$line" ]; do
	if [ "$line" = "---" ]; then emit; fi
	buf="$buf$line
"
done
emit
`},
	{"unhook", "sed '/helm.sh\\/hook/d'\n"},
	{"to-one-file", "sed 's/postrender-filename: .*/postrender-filename: one.yaml/'\n"},
	{"unannotate", "sed '/postrender-filename/d'\n"},
	{"duplicate", "x=$(cat)\nprintf '%s\\n---\\n%s\\n' \"$x\" \"$x\"\n"},
	{"reindent", "sed 's/^  /   /'\n"},
	{"malformed", "cat >/dev/null\nprintf 'a: [\\n'\n"},
	{"empty", "cat >/dev/null\n"},
	{"blank", "cat >/dev/null\necho\n"},
	{"no-kind", "cat\nprintf -- '---\\nfoo: bar\\n'\n"},
	{"not-mapping", "cat\nprintf -- '---\\n- a\\n- b\\n'\n"},
	{"scalar", "cat\nprintf -- '---\\njust text\\n'\n"},
	{"args", "cat\necho \"# args: $*\"\n"},
	{"fail", "cat >/dev/null\necho 'post-renderer failed' >&2\nexit 3\n"},
}

// hookTemplate is a chart's template of hooks, for the post-renderer to see
// (Helm 4) or not (Helm 3).
const hookTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-pre
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": "{{ .Values.int | default 2 }}"
data:
  a: {{ .Values.str | quote }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-post
  annotations:
    helm.sh/hook: post-install
stringData:
  b: "1"
`

// postRender draws a post-renderer for a template command: its files (a
// postrenderer/v1 plugin for Helm 4, which takes only plugin names; a script
// run by path for Helm 3) and its flags.
func (d *draw) postRender() ([]File, [][]string) {
	pr := postRenderers[d.r.IntN(len(postRenderers))]
	script := "#!/bin/sh\n" + pr.script
	var files []File
	var flags [][]string
	if d.dialect == Helm4 {
		dir := PluginsDir + "/" + pr.name
		files = []File{
			{dir + "/plugin.yaml", fmt.Sprintf("name: %s\nversion: 0.1.0\ntype: postrenderer/v1\napiVersion: v1\nruntime: subprocess\nruntimeConfig:\n  platformCommand:\n    - command: ${HELM_PLUGIN_DIR}/run.sh\n", pr.name)},
			{dir + "/run.sh", script},
		}
		flags = [][]string{{"--post-renderer", pr.name}}
	} else {
		path := "postrender/" + pr.name + ".sh"
		files = []File{{path, script}}
		flags = [][]string{{"--post-renderer", "./" + path}}
	}
	if pr.name == "args" || d.chance(0.1) {
		flags = append(flags, []string{"--post-renderer-args", d.pick([]string{"x", "a b", "--flag"})})
	}
	if d.chance(0.5) {
		files = append(files, File{ChartDir + "/templates/hooks.yaml", hookTemplate})
	}
	return files, flags
}

// yamlDocs are documents in the YAML styles a post-render stream is written
// in and read back from (Helm 4 rewrites each document with kyaml): quoting,
// block and flow styles, comments, anchors, sequences indented or not,
// metadata missing, empty or in flow style, lists, hooks.
var yamlDocs = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-plain\ndata:\n  a: x\n  b: 'single'\n  c: \"double\"\n  d: \"007\"\n",
	"# leading comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: commented # inline\n  labels:\n    app: demo\n# between\ndata:\n  k: v   # trailing\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blocks\ndata:\n  literal: |\n    line one\n      indented\n    last\n  stripped: |-\n    no newline\n  folded: >\n    folded\n    text\n  kept: |+\n    kept\n\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow-meta, labels: {a: b}}\ndata: {x: \"1\", y: [1, 2]}\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: deploy\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: busybox\n        args: [\"a\", 'b', c]\n      - name: d\n        image: busybox\n        env:\n          - name: X\n            value: \"1\"\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\ndata:\n  a: &v shared\n  b: *v\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scalars\ndata:\n  empty: \"\"\n  tilde: \"~\"\n  uni: \"é ü 日本\"\n  long: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n  \"key:colon\": \"v: w\"\n  tab: \"a\\tb\"\n  multi: plain\n    continued\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: annotated\n  annotations: {}\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: null-annotations\n  annotations:\n",
	"apiVersion: v1\nkind: ConfigMap\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-values\ndata:\n{{- range $k, $v := .Values.data }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n",
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: item-a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: item-b\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: weighted-hook\n  annotations:\n    \"helm.sh/hook\": pre-install\n    \"helm.sh/hook-weight\": \"5\"\n    \"helm.sh/hook-delete-policy\": before-hook-creation\n",
	"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: post-hook\n  annotations: {\"helm.sh/hook\": post-install}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n",
	"apiVersion: v1\nkind: Secret\nmetadata:\n  name: secret\ntype: Opaque\nstringData:\n  password: hunter2\n",
	"# only a comment\n",
	"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\n",
	// Templates Helm 4 cannot parse before it hands them over.
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  a: [\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  a: \"1\"\n  a: \"2\"\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: glued\n---apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: glued-next\n",
}

// docSeparators join a template's documents: Helm's separator with what may
// follow it on its line.
var docSeparators = []string{"---\n", "---\n", "--- \n", "---\n---\n", "\n---\n"}

// postRenderChart is a chart that renders, of documents drawn from yamlDocs,
// for the post-renderer axis: the generator's other charts mostly fail before
// a post-renderer runs.
func (d *draw) postRenderChart() []File {
	files := []File{
		{ChartDir + "/Chart.yaml", "apiVersion: v2\nname: mychart\nversion: 0.1.0\n"},
		{ChartDir + "/values.yaml", "str: hello\nint: 3\ndata:\n  b: \"2\"\n  a: one\n"},
		{ChartDir + "/templates/_helpers.tpl", "{{- define \"mychart.helper\" -}}x{{- end -}}\n"},
	}
	for t := 0; t < 1+d.r.IntN(3); t++ {
		var b strings.Builder
		for i, n := 0, 1+d.r.IntN(3); i < n; i++ {
			if i > 0 {
				b.WriteString(d.pick(docSeparators))
			}
			b.WriteString(d.pick(yamlDocs))
		}
		files = append(files, File{fmt.Sprintf("%s/templates/t%d.yaml", ChartDir, t), b.String()})
	}
	if d.chance(0.3) {
		files = append(files, File{ChartDir + "/templates/tests/test-a.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations:\n    \"helm.sh/hook\": test\n"})
	}
	if d.chance(0.3) {
		files = append(files, File{ChartDir + "/crds/crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n"})
	}
	if d.chance(0.3) {
		files = append(files, File{ChartDir + "/templates/NOTES.txt", "Notes for {{ .Release.Name }}\n"})
	}
	return files
}

// postRenderArgs is a template command line that reaches the post-renderer,
// with the flags that select what of its output is printed.
func (d *draw) postRenderArgs() [][]string {
	args := [][]string{{"template", d.pick([]string{"rel", "my-release"}), ChartDir}}
	flags := [][]string{
		{"--include-crds"}, {"--skip-tests"}, {"--no-hooks"}, {"--is-upgrade"}, {"--namespace", "ns1"},
		{"--show-only", d.pick([]string{"templates/t0.yaml", "templates/t1.yaml", "templates/hooks.yaml"})},
		{"--set", "str=changed"},
	}
	for i, m := 0, d.r.IntN(3); i < m; i++ {
		args = append(args, flags[d.r.IntN(len(flags))])
	}
	files, prFlags := d.postRender()
	d.commandFiles = append(d.commandFiles, files...)
	return append(args, prFlags...)
}
