//go:build go1.26 && !go1.27

package tmplparse

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/Masterminds/sprig/v3"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// testFuncs are the function names templates may call here: text/template's,
// sprig's and Helm's.
func testFuncs() map[string]any {
	funcs := map[string]any{}
	for name, fn := range sprig.TxtFuncMap() {
		funcs[name] = fn
	}
	for _, name := range strings.Fields(`and call html index slice js len not or print printf println
		urlquery eq ge gt le lt ne include tpl required toYaml toYamlPretty fromYaml fromYamlArray
		toJson fromJson fromJsonArray toToml fromToml lookup mustToYaml mustToJson mustFromYaml`) {
		funcs[name] = true
	}
	return funcs
}

// equalTrees reports how got differs from want (parse.Parse's), "" when not at
// all: the same templates with the same names, nodes (field by field, positions
// included) and text, as the errors of an execution report it.
func equalTrees(want, got map[string]*parse.Tree) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d trees, want %d", len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		if g == nil {
			return fmt.Sprintf("no tree %q", name)
		}
		if g.Name != w.Name || g.ParseName != w.ParseName || g.Mode != w.Mode {
			return fmt.Sprintf("tree %q: name %q, parse name %q, mode %v; want %q, %q, %v", name, g.Name, g.ParseName, g.Mode, w.Name, w.ParseName, w.Mode)
		}
		if diff := equalValues(reflect.ValueOf(w.Root), reflect.ValueOf(g.Root), "Root"); diff != "" {
			return fmt.Sprintf("tree %q: %s", name, diff)
		}
		if diff := sameContexts(w, g, w.Root, g.Root); diff != "" {
			return fmt.Sprintf("tree %q: %s", name, diff)
		}
	}
	return ""
}

// equalValues compares the exported fields of two nodes, recursively.
func equalValues(w, g reflect.Value, path string) string {
	if w.Kind() != g.Kind() {
		return fmt.Sprintf("%s: kind %v, want %v", path, g.Kind(), w.Kind())
	}
	switch w.Kind() {
	case reflect.Interface, reflect.Pointer:
		if w.IsNil() != g.IsNil() {
			return fmt.Sprintf("%s: nil %v, want %v", path, g.IsNil(), w.IsNil())
		}
		if w.IsNil() {
			return ""
		}
		if w.Kind() == reflect.Interface && w.Elem().Type() != g.Elem().Type() {
			return fmt.Sprintf("%s: %v, want %v", path, g.Elem().Type(), w.Elem().Type())
		}
		return equalValues(w.Elem(), g.Elem(), path)
	case reflect.Struct:
		for i := range w.NumField() {
			f := w.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if diff := equalValues(w.Field(i), g.Field(i), path+"."+f.Name); diff != "" {
				return diff
			}
		}
		return ""
	case reflect.Slice:
		if w.Len() != g.Len() {
			return fmt.Sprintf("%s: length %d, want %d", path, g.Len(), w.Len())
		}
		for i := range w.Len() {
			if diff := equalValues(w.Index(i), g.Index(i), fmt.Sprintf("%s[%d]", path, i)); diff != "" {
				return diff
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(w.Interface(), g.Interface()) {
			return fmt.Sprintf("%s: %v, want %v", path, g.Interface(), w.Interface())
		}
		return ""
	}
}

// sameContexts compares what ErrorContext says of the first and last node of
// each list (it reads the tree's text up to the node: every node would take
// time quadratic in the text).
func sameContexts(wt, gt *parse.Tree, w, g *parse.ListNode) string {
	if w == nil {
		return ""
	}
	for i, wn := range w.Nodes {
		gn := g.Nodes[i]
		if i == 0 || i == len(w.Nodes)-1 {
			wl, wc := wt.ErrorContext(wn)
			gl, gc := gt.ErrorContext(gn)
			if wl != gl || wc != gc {
				return fmt.Sprintf("node %d: context %s %q, want %s %q", i, gl, gc, wl, wc)
			}
		}
		var wb, gb *parse.BranchNode
		switch n := wn.(type) {
		case *parse.IfNode:
			wb, gb = &n.BranchNode, &gn.(*parse.IfNode).BranchNode
		case *parse.RangeNode:
			wb, gb = &n.BranchNode, &gn.(*parse.RangeNode).BranchNode
		case *parse.WithNode:
			wb, gb = &n.BranchNode, &gn.(*parse.WithNode).BranchNode
		}
		if wb != nil {
			if diff := sameContexts(wt, gt, wb.List, gb.List); diff != "" {
				return diff
			}
			if diff := sameContexts(wt, gt, wb.ElseList, gb.ElseList); diff != "" {
				return diff
			}
		}
	}
	return ""
}

// check parses text both ways: where parse.Parse succeeds, the trees must be
// equal; where it fails, this parser must have failed too.
func check(t *testing.T, name, text string, funcs map[string]any) bool {
	t.Helper()
	want, werr := parse.Parse(name, text, "", "", funcs)
	_, ok := parseSet(name, text, funcs)
	if werr != nil {
		if ok {
			t.Errorf("%s: parsed %q, which text/template/parse refuses: %v", name, text, werr)
		}
		got, gerr := Parse(name, text, funcs)
		if gerr == nil || gerr.Error() != werr.Error() || len(got) != len(want) {
			t.Errorf("%s: error %v with %d trees, want %v with %d", name, gerr, len(got), werr, len(want))
		}
		return false
	}
	if !ok {
		t.Errorf("%s: did not parse %q, which text/template/parse parses", name, text)
		return false
	}
	got, err := Parse(name, text, funcs)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if diff := equalTrees(want, got); diff != "" {
		t.Errorf("%s: %q: %s", name, text, diff)
	}
	return true
}

func TestParseLikeTextTemplate(t *testing.T) {
	cases := map[string]string{
		"empty":                 "",
		"text":                  "hello\nworld ✓\n",
		"action":                "a {{ .Values.x }} b",
		"trim":                  "a  \n {{- .x -}} \n  b {{- 3 }} {{ -3 -}}",
		"comment":               "a {{/* c */}} b {{- /* c\n */ -}} d",
		"if else":               "{{ if .a }}x{{ else if .b }}y{{ else }}z{{ end }}",
		"with else with":        "{{ with .a }}{{ . }}{{ else with .b }}b{{ else }}c{{ end }}",
		"range":                 "{{ range $i, $e := .list }}{{ $i }}={{ $e }}{{ if $e }}{{ break }}{{ end }}{{ continue }}{{ else }}none{{ end }}",
		"range int":             "{{ range 3 }}{{ . }}{{ end }}",
		"define and template":   `{{ define "a" }}A{{ .x }}{{ end }}{{ template "a" . }}{{ template "a" }}`,
		"define only":           "{{- define \"x\" -}}\n{{ .y }}\n{{- end -}}\n{{/* tail */}}\n",
		"redefine empty":        `{{ define "a" }} {{ end }}{{ define "a" }}b{{ end }}`,
		"block":                 `{{ block "b" .x }}default {{ . }}{{ end }}`,
		"pipeline":              `{{ .a | default "x" | quote | printf "%s-%d" 3 }}`,
		"parens":                `{{ (index .m "k").f.g }} {{ (list 1 2) }} {{ ((.a)) }}`,
		"chains":                `{{ $x := .a }}{{ $x.b.c }} {{ $.Values.y.z }} {{ .a.b.c }} {{ (.a).b }}`,
		"declare and assign":    `{{ $a := 1 }}{{ $a = 2 }}{{ $b := $a }}{{ $b }}`,
		"numbers":               `{{ print 1 -2 0x1F 0o17 0b101 1_000 1.5 -0 .5 1e3 0x1p-2 'a' '\n' '\u00e9' 1i 2.5i 0i 1+2i 18446744073709551615 }}`,
		"strings":               "{{ print \"a\\\"b\\n\" `raw\nline` \"é\" }}",
		"nil and bools":         `{{ print nil true false }}{{ if not true }}{{ end }}`,
		"multi-line action":     "{{ printf\n  \"%s\"\n  .x\n}}",
		"unicode fields":        "{{ .héllo.wörld }} {{ $ñ := 1 }}{{ $ñ }}",
		"variables in branches": `{{ if $x := .a }}{{ $x }}{{ else }}{{ $x }}{{ end }}{{ with $y := .b }}{{ $y }}{{ end }}`,
		"nested":                "{{ range .a }}{{ with .b }}{{ if .c }}{{ range .d }}{{ . }}{{ end }}{{ end }}{{ end }}{{ end }}",
		"include helpers":       `{{- define "chart.name" -}}{{ default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}{{- end }}{{ include "chart.name" . | nindent 4 }}`,
		"spaces and dashes":     "{{ $x := 1 -}}\n\n{{- $x }}{{ 1 -}} {{- 2 }}",
		"dot":                   "{{ . }}{{ .}}{{. }}{{ with . }}{{ end }}",
		"crlf":                  "a\r\n{{ .x }}\r\n{{- if .y }}\r\n{{ end }}",
		// Refused by both.
		"unclosed action":     "{{ .x ",
		"unknown function":    "{{ nope 1 }}",
		"undefined variable":  "{{ $nope }}",
		"unexpected end":      "{{ end }}",
		"missing end":         "{{ if .x }}",
		"bad number":          "{{ 1x }}",
		"stage constant":      "{{ .a | 3 }}",
		"dot after string":    `{{ "a".b }}`,
		"break outside range": "{{ break }}",
		"redefinition":        `{{ define "a" }}1{{ end }}{{ define "a" }}2{{ end }}`,
		"unterminated string": `{{ "abc }}`,
		"too many decls":      "{{ $a, $b := .x }}",
		"empty pipeline":      "{{ }}",
		"bad character":       "{{ .a# }}",
		"integer overflow":    "{{ 99999999999999999999 }}",
		"unclosed comment":    "{{/* x }}",
		"else after else":     "{{ if .a }}{{ else }}{{ else }}{{ end }}",
	}
	funcs := testFuncs()
	for name, text := range cases {
		t.Run(name, func(t *testing.T) { check(t, name, text, funcs) })
	}
}

// TestParseCorpusLikeTextTemplate parses every template of the conformance
// corpus's charts (their directories and archives) both ways.
func TestParseCorpusLikeTextTemplate(t *testing.T) {
	corpus := filepath.Join(prereq.Corpus(t), "corpus")
	funcs := testFuncs()
	parsed := 0
	visit := func(name, text string) {
		if strings.Contains(name, "/templates/") && check(t, name, text, funcs) {
			parsed++
		}
	}
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".tgz") {
			return eachArchiveFile(p, data, visit)
		}
		visit(p, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Templates calling functions testFuncs lacks fail both ways; most parse.
	if parsed < 1000 {
		t.Errorf("only %d corpus templates parsed", parsed)
	}
	t.Logf("%d corpus templates parsed alike", parsed)
}

func eachArchiveFile(name string, data []byte, fn func(name, text string)) error {
	zr, err := gzip.NewReader(strings.NewReader(string(data)))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fn(name+"!"+hd.Name, string(body))
	}
}

func FuzzParseLikeTextTemplate(f *testing.F) {
	for _, seed := range []string{
		"", "a {{ .x }} b", "{{- if .a -}}x{{ else if $y := .b }}{{ $y.c }}{{ end }}",
		`{{ define "d" }}{{ range $i, $e := . }}{{ $i }}{{ end }}{{ end }}{{ template "d" list 1 }}`,
		"{{ (.a).b | printf \"%v\" 1.5 'x' 2i nil true }}", "{{/* c */}}{{ with . }}{{ else with .z }}{{ end }}",
		"{{ $x := 1 }}{{ $x = 2 }}{{ block \"b\" . }}{{ end }}",
	} {
		f.Add(seed)
	}
	funcs := testFuncs()
	f.Fuzz(func(t *testing.T, text string) {
		check(t, "fuzz", text, funcs)
	})
}

func BenchmarkParse(b *testing.B) {
	dir := filepath.Join(prereq.Corpus(b), "corpus", "kube-prometheus-stack", "chart", "templates")
	var texts []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			texts = append(texts, string(data))
		}
		return nil
	})
	if len(texts) == 0 {
		b.Fatalf("no kube-prometheus-stack templates under %s", dir)
	}
	funcs := testFuncs()
	for name, parseText := range map[string]func(string) (map[string]*parse.Tree, error){
		"text-template-parse": func(s string) (map[string]*parse.Tree, error) { return parse.Parse("t", s, "", "", funcs) },
		"tmplparse":           func(s string) (map[string]*parse.Tree, error) { return Parse("t", s, funcs) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range texts {
					_, _ = parseText(s)
				}
			}
		})
	}
}
