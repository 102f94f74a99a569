package generator

import (
	"fmt"
	"strings"
)

// valueKeys are the keys templates refer to (.Values.KEY), each with spellings that exercise a
// corner of YAML: tags, anchors and merge keys, nulls, YAML 1.1 booleans, number bases, dates.
var valueKeys = []struct {
	key       string
	spellings []string
}{
	{"str", []string{"hello", `"héllo 世界"`, "''", "~", "null", `"007"`, "!!str 12", "|\n  multi\n  line\n", ">-\n  folded\n  text\n"}},
	{"numstr", []string{`"1e3"`, `"0x1F"`, "'12'", `"-0"`, `"1_000"`, `"+1"`}},
	{"boolstr", []string{`"true"`, "'yes'", `"on"`, `"False"`}},
	{"int", []string{"0", "42", "-7", "0x1F", "0o17", "017", "1_000", "1e3", "+5", "!!int \"3\""}},
	{"huge", []string{"9223372036854775807", "9223372036854775808", "18446744073709551616", "1e300", "12345678901234567890123"}},
	{"float", []string{"1.5", "-0.0", ".inf", "-.Inf", ".nan", "1.0", "6.02e23", "!!float 2"}},
	{"zero", []string{"0", "0.0", "-0", "\"\"", "false"}},
	{"negative", []string{"-1", "-9223372036854775808", "-1.5"}},
	{"bool", []string{"true", "false", "yes", "no", "on", "off", "True", "FALSE", "y", "n"}},
	{"nul", []string{"", "null", "~", "Null", "!!null ''"}},
	{"date", []string{"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2002-12-14 21:59:43.10 -5", `"2001-12-14"`}},
	{"tagged", []string{"!!binary aGVsbG8=", "!!set {a, b}", "!!omap [a: 1, b: 2]", "!custom x", "!!timestamp 2001-12-14"}},
	{"binary", []string{"!!binary |\n  aGVsbG8gd29y\n  bGQ=\n", "aGVsbG8="}},
	{"tplstr", []string{`"{{ .Values.str }}"`, `"{{ .Chart.Name }}-{{ .Release.Name }}"`, `"{{ template \"x\" }}"`, `"{{ .Values.tplstr }}"`}},
	{"list", []string{"[1, \"a\", null, true]", "\n  - x\n  - - nested\n  - {a: 1}", "[]", "[3, 1, 2]"}},
	{"emptyList", []string{"[]", "null"}},
	{"mixed", []string{"[1, 1.5, \"s\", null, [], {}]", "\n  - &anc {k: v}\n  - *anc"}},
	{"map", []string{"{a: 1, b: [1, 2], c: {d: null}}", "{}", "\n  \"\": empty-key\n  1: int-key\n  true: bool-key\n  a.b: dotted"}},
	{"emptyMap", []string{"{}", "null", "~"}},
	{"nested", []string{"\n  a:\n    b:\n      c: deep\n  list:\n    - a: 1", "{a: {b: {c: {d: {e: 1}}}}}"}},
}

// hostile spellings fail every render (JSON has no infinities or NaN); drawn rarely.
var hostile = map[string]bool{".inf": true, "-.Inf": true, ".nan": true}

// spelling draws a spelling of a key, a hostile one seldom.
func (d *draw) spelling(spellings []string) string {
	for {
		sp := d.pick(spellings)
		if !hostile[sp] || d.chance(0.05) {
			return sp
		}
	}
}

// valuesFiles draws the chart's values.yaml (and for the top chart some -f files beside it).
func (d *draw) valuesFiles(dir string, subValues []string, top bool) []File {
	var b strings.Builder
	if d.chance(0.3) {
		b.WriteString("# comment first\n")
	}
	anchors := d.chance(0.4)
	if anchors {
		b.WriteString("base: &base\n  shared: 1\n  over: base\n")
	}
	for _, kv := range valueKeys {
		if d.chance(0.15) {
			continue
		}
		sp := d.spelling(kv.spellings)
		if strings.HasPrefix(sp, "\n") || strings.HasPrefix(sp, "|") || strings.HasPrefix(sp, ">") {
			fmt.Fprintf(&b, "%s: %s", kv.key, sp)
			if !strings.HasSuffix(sp, "\n") {
				b.WriteString("\n")
			}
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", kv.key, sp)
	}
	if anchors {
		b.WriteString(d.pick([]string{
			"merged:\n  <<: *base\n  over: mine\n",
			"merged:\n  <<: [*base, {extra: 2}]\n",
			"merged: *base\n",
		}))
	}
	b.WriteString("global:\n" + d.pick([]string{"  g: from-" + strings.ReplaceAll(dir, "/", "-") + "\n", "  g: null\n", "  list: [1]\n", "  {}\n"}))
	if !top {
		b.WriteString(d.pick([]string{
			"exports:\n  data:\n    exportedKey: v\n",
			"exported:\n  k: child\n",
			"enabled: true\n",
			"",
		}))
	}
	for _, sv := range subValues {
		b.WriteString(sv + "\n")
	}
	if top && d.chance(0.2) {
		b.WriteString("imported:\n  k: parent\n")
	}
	data := b.String()
	if d.dialect == Helm4 && d.chance(0.1) {
		data += "---\n" + d.pick([]string{"str: second-doc\n", "int: 2\n", "null\n", "{}\n"})
	}
	if d.chance(0.05) {
		data += d.pick([]string{"bad: [unclosed\n", "\tstr: tab\n", "dup: 1\ndup: 2\n"})
	}
	files := []File{{dir + "/values.yaml", data}}
	if top {
		files = append(files, File{"extra.yaml", d.extraValues()})
	}
	return files
}

func (d *draw) extraValues() string {
	var b strings.Builder
	n := 1 + d.r.IntN(3)
	for i := 0; i < n; i++ {
		kv := valueKeys[d.r.IntN(len(valueKeys))]
		sp := d.spelling(kv.spellings)
		if strings.HasPrefix(sp, "\n") || strings.HasPrefix(sp, "|") || strings.HasPrefix(sp, ">") {
			sp = "null"
		}
		fmt.Fprintf(&b, "%s: %s\n", kv.key, sp)
	}
	if d.chance(0.3) {
		b.WriteString("global:\n  g: from-file\n")
	}
	if d.dialect == Helm4 && d.chance(0.15) {
		b.WriteString("---\nstr: doc2\n")
	}
	return b.String()
}

// extraFiles are files beside the chart that command lines refer to.
func (d *draw) extraFiles() []File {
	return []File{{"setfile.txt", "from --set-file\n"}}
}
