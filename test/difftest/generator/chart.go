package generator

import (
	"fmt"
	"strings"
)

// chart draws a chart under dir: Chart.yaml, values.yaml, templates, files and, below depth 3,
// subcharts (some of them library charts, aliased, behind conditions or tags, exporting values).
func (d *draw) chart(dir, name string, depth int) []File {
	var files []File
	var deps []string
	var subValues []string
	if depth < 3 && d.chance(0.55-0.15*float64(depth)) {
		n := 1 + d.r.IntN(2)
		for j := 0; j < n; j++ {
			sub := fmt.Sprintf("sub%d%d", depth+1, j)
			library := d.chance(0.2)
			files = append(files, d.subchart(dir+"/charts/"+sub, sub, depth+1, library)...)
			dep, addr, vals := d.dependency(sub, library)
			deps = append(deps, dep)
			if addr != "" {
				if depth == 0 {
					d.subcharts = append(d.subcharts, addr)
				}
				subValues = append(subValues, vals...)
			}
		}
	}
	files = append(files, File{dir + "/Chart.yaml", d.chartYAML(name, "application", deps)})
	files = append(files, d.valuesFiles(dir, subValues, depth == 0)...)
	files = append(files, File{dir + "/templates/_helpers.tpl", helpers(name)})
	nt := 1 + d.r.IntN(2)
	for t := 0; t < nt; t++ {
		files = append(files, File{fmt.Sprintf("%s/templates/t%d.yaml", dir, t), d.template(name, t)})
	}
	files = append(files,
		File{dir + "/files/a.txt", "alpha\nbeta\n\ngamma é\n"},
		File{dir + "/files/b.json", `{"x": [1, 2], "y": null}` + "\n"},
	)
	if d.chance(0.3) {
		files = append(files, File{dir + "/templates/NOTES.txt", "Notes for {{ .Release.Name }}: {{ .Values.str }}\n"})
	}
	if d.chance(0.2) {
		files = append(files, File{dir + "/templates/tests/test-a.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations:\n    \"helm.sh/hook\": test\n"})
	}
	if d.chance(0.2) {
		files = append(files, File{dir + "/crds/crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n"})
	}
	if d.chance(0.3) {
		files = append(files, File{dir + "/README.md", "# " + name + "\n\nA chart é.\n"})
	}
	if d.chance(0.1) {
		files = append(files, File{dir + "/values.schema.json", d.schema()})
	}
	if d.chance(0.2) {
		files = append(files, File{dir + "/.helmignore", "files/b.json\n*.tmp\n"})
	}
	return files
}

func (d *draw) subchart(dir, name string, depth int, library bool) []File {
	if !library {
		return d.chart(dir, name, depth)
	}
	return []File{
		{dir + "/Chart.yaml", d.chartYAML(name, "library", nil)},
		{dir + "/values.yaml", "libval: 1\n"},
		{dir + "/templates/_lib.tpl", `{{- define "lib.name" -}}lib-{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}
{{- define "lib.values" -}}{{ toYaml .Values }}{{- end -}}
`},
	}
}

// dependency draws a Chart.yaml dependency entry for sub and returns it, the name values use for
// it (empty for a library chart) and the parent values.yaml lines that configure it.
func (d *draw) dependency(sub string, library bool) (string, string, []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "  - name: %s\n    version: 0.1.0\n    repository: \"\"\n", sub)
	addr := sub
	if !library && d.chance(0.3) {
		addr = "alias" + sub
		fmt.Fprintf(&b, "    alias: %s\n", addr)
	}
	var vals []string
	if !library && d.chance(0.4) {
		fmt.Fprintf(&b, "    condition: %s.enabled\n", addr)
		vals = append(vals, fmt.Sprintf("%s:\n  enabled: %s\n  str: from-parent", addr, d.pick([]string{"true", "false", "\"false\"", "null", "0", "yes"})))
	}
	if !library && d.chance(0.3) {
		b.WriteString("    tags:\n      - front\n")
		vals = append(vals, "tags:\n  front: "+d.pick([]string{"true", "false", "null"}))
	}
	if !library && d.chance(0.3) {
		b.WriteString(d.pick([]string{
			"    import-values:\n      - data\n",
			"    import-values:\n      - child: exported\n        parent: imported\n",
			"    import-values:\n      - child: missing\n        parent: imported\n",
		}))
	}
	if library {
		return b.String(), "", nil
	}
	return b.String(), addr, vals
}

func (d *draw) chartYAML(name, typ string, deps []string) string {
	var b strings.Builder
	api := "v2"
	if typ == "application" && d.chance(0.05) {
		api = d.pick([]string{"v1", "v3"})
	}
	fmt.Fprintf(&b, "apiVersion: %s\nname: %s\nversion: %s\n", api, name, d.pick([]string{"0.1.0", "0.1.0", "1.2.3-rc.1+build.5", "v2.0.0"}))
	if typ == "library" {
		b.WriteString("type: library\n")
	} else if d.chance(0.2) {
		b.WriteString("type: application\n")
	}
	if d.chance(0.6) {
		fmt.Fprintf(&b, "appVersion: %s\n", d.pick([]string{`"1.0"`, "1.10", "2024-01-02", "true", `"v1.2.3"`}))
	}
	if d.chance(0.3) {
		b.WriteString("description: A chart with ünïcode\nkeywords:\n  - b\n  - a\n")
	}
	if d.chance(0.2) {
		b.WriteString("annotations:\n  z: \"1\"\n  a: two\n")
	}
	if d.chance(0.1) {
		b.WriteString("kubeVersion: \">=1.20.0-0\"\n")
	}
	if len(deps) > 0 {
		b.WriteString("dependencies:\n")
		for _, dep := range deps {
			b.WriteString(dep)
		}
	}
	if d.chance(0.03) {
		// A field of the wrong type: Helm's error names its Go types (chart.Maintainer,
		// v2.Dependency, ...), which differ by release.
		bad := []string{"maintainers: someone\n", "maintainers: [x]\n", "keywords: a\n", "deprecated: maybe\n", "annotations: [a]\n"}
		if len(deps) == 0 {
			bad = append(bad, "dependencies: none\n", "dependencies:\n  - sub\n")
		}
		b.WriteString(d.pick(bad))
	}
	return b.String()
}

func helpers(name string) string {
	return `{{- define "` + name + `.helper" -}}
{{ .Chart.Name }}-{{ .Values.str | default "none" }}
{{- end -}}
`
}

// template draws one template file of ConfigMaps whose data shows drawn expressions.
func (d *draw) template(chart string, t int) string {
	var b strings.Builder
	docs := 1
	if d.chance(0.2) {
		docs = 2
	}
	for doc := 0; doc < docs; doc++ {
		if doc > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-%s-%d-%d\ndata:\n", chart, t, doc)
		n := 1 + d.r.IntN(3)
		for i := 0; i < n; i++ {
			b.WriteString(d.line(i) + "\n")
		}
		if d.chance(0.15) {
			b.WriteString(d.objectLine(n) + "\n")
		}
	}
	if d.chance(0.1) {
		b.WriteString(d.pick([]string{
			"{{ fail \"stop here\" }}\n",
			"{{ required \"need .Values.missing\" .Values.missing }}\n",
			"{{ $d := dict \"a\" 1 }}{{ $_ := set $d \"b\" (list $d.a) }}{{ toJson $d }}\n",
		}))
	}
	return b.String()
}

func (d *draw) schema() string {
	return d.pick([]string{
		`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"int": {"type": "integer"}}}`,
		`{"type": "object", "required": ["str"], "properties": {"str": {"type": "string", "minLength": 2}}}`,
		`{"type": "object", "properties": {"bool": {"type": "boolean"}, "list": {"type": "array"}}}`,
	}) + "\n"
}
