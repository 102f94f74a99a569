package generator

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Dialect names the Helm release a case is drawn for.
type Dialect string

// The two dialects.
const (
	Helm3 Dialect = "helm3"
	Helm4 Dialect = "helm4"
)

// ChartDir is where a case's top chart lives, relative to its working directory.
const ChartDir = "mychart"

// Generator draws cases; New(seed, dialect).Case(i) is the same case on every call.
type Generator struct {
	seed    uint64
	dialect Dialect
	// postRenderOnly draws only template commands, each with a post-renderer.
	postRenderOnly bool
}

// New returns a generator for a seed and a dialect.
func New(seed uint64, dialect Dialect) Generator {
	return Generator{seed: seed, dialect: dialect}
}

// PostRenderOnly is the generator drawing only template commands, each with
// a post-renderer: the post-renderer axis on its own.
func (g Generator) PostRenderOnly() Generator {
	g.postRenderOnly = true
	return g
}

// Case draws case number i.
func (g Generator) Case(i int) Case {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)))
	d := &draw{r: r, dialect: g.dialect, postRenderOnly: g.postRenderOnly}
	c := Case{Name: fmt.Sprintf("%s-%d-%d", g.dialect, g.seed, i)}
	if g.postRenderOnly {
		c.Name = fmt.Sprintf("%s-postrender-%d-%d", g.dialect, g.seed, i)
	}
	if g.postRenderOnly && d.chance(0.7) {
		c.Files = d.postRenderChart()
		c.Args = d.postRenderArgs()
	} else {
		c.Files = d.chart(ChartDir, ChartDir, 0)
		c.Files = append(c.Files, d.extraFiles()...)
		c.Args = d.commandLine()
	}
	c.Files = append(c.Files, d.commandFiles...)
	return c
}

// draw holds one case's random source while it is drawn.
type draw struct {
	r       *rand.Rand
	dialect Dialect
	// subcharts are the names (aliases included) that templates can address under .Values.
	subcharts      []string
	postRenderOnly bool
	// commandFiles are files the command line needs (a post-renderer).
	commandFiles []File
}

func (d *draw) pick(xs []string) string { return xs[d.r.IntN(len(xs))] }

func (d *draw) chance(p float64) bool { return d.r.Float64() < p }

// expr draws a template expression of at most depth nested calls.
func (d *draw) expr(depth int) string {
	table := funcs
	if d.dialect == Helm4 && d.chance(0.1) {
		table = helm4Funcs
	}
	f := table[d.r.IntN(len(table))]
	args := make([]string, len(f.args))
	for i, k := range f.args {
		args[i] = d.arg(k, depth)
	}
	switch f.name {
	case "include":
		args[0] = d.pick([]string{`"lib.name"`, `"mychart.helper"`, `"missing.tpl"`, `"lib.values"`})
	case "tpl":
		args[0] = d.pick([]string{`"{{ .Release.Name }}"`, `"{{ .Values.str }}"`, `"{{ include \"lib.name\" . }}"`, `"{{ .Template.Name }}"`, `"{{"`, `.Values.tplstr`})
		args[1] = d.pick([]string{`.`, `$`, `(dict)`, `.Values`})
	case "lookup":
		args = []string{`"v1"`, d.pick([]string{`"ConfigMap"`, `"Secret"`}), d.pick([]string{`""`, `"default"`}), d.pick([]string{`""`, `"x"`})}
	case "required":
		args[0] = `"value required"`
	}
	call := f.name
	if len(args) > 0 {
		call += " " + strings.Join(args, " ")
	}
	return call
}

func (d *draw) arg(k kind, depth int) string {
	if depth > 0 && d.chance(0.25) {
		return "(" + d.expr(depth-1) + ")"
	}
	if d.chance(0.1) {
		return d.pick(anyArgs)
	}
	if k == kAny {
		pools := [][]string{strArgs, intArgs, listArgs, mapArgs, anyArgs}
		return d.pick(pools[d.r.IntN(len(pools))])
	}
	return d.pick(k.pool())
}

// builtin draws an expression over Helm's built-in objects.
func (d *draw) builtin() string {
	xs := []string{
		`.Files.Get "files/a.txt"`, `.Files.Get "missing"`, `.Files.GetBytes "files/a.txt"`,
		`.Files.Glob "files/*"`, `(.Files.Glob "files/**").AsConfig`, `(.Files.Glob "files/*").AsSecrets`,
		`.Files.Lines "files/a.txt"`, `.Files.AsConfig`,
		`.Capabilities.KubeVersion.Version`, `.Capabilities.KubeVersion.Major`, `.Capabilities.KubeVersion.Minor`,
		`.Capabilities.KubeVersion.GitVersion`, `.Capabilities.APIVersions.Has "apps/v1"`,
		`.Capabilities.APIVersions.Has "batch/v1/Job"`, `.Capabilities.APIVersions.Has "x.example/v1"`,
		`.Capabilities.HelmVersion.Version`, `.Chart.Name`, `.Chart.Version`, `.Chart.AppVersion`,
		`.Chart.Annotations`, `.Chart.Keywords`, `.Chart.Dependencies`, `.Chart.IsRoot`, `.Chart.Type`,
		`.Release.Name`, `.Release.Namespace`, `.Release.IsInstall`, `.Release.IsUpgrade`, `.Release.Revision`,
		`.Release.Service`, `.Template.Name`, `.Template.BasePath`, `.Values`, `.Values.global`,
	}
	if d.chance(0.15) {
		// A built-in object printed whole: through its String method where
		// Helm's type has one, else its fields (the object-printing axis).
		// Not .Chart nor .Subcharts, whose pointers print as addresses.
		return d.pick([]string{`.Capabilities.KubeVersion`, `.Capabilities.HelmVersion`, `.Release`, `.Template`, `.Files`})
	}
	if len(d.subcharts) > 0 && d.chance(0.5) {
		s := d.pick(d.subcharts)
		return d.pick([]string{`.Values.` + s, `(index .Subcharts "` + s + `").Values`, `(index .Subcharts "` + s + `").Chart.Name`, `keys .Subcharts | sortAlpha`})
	}
	e := d.pick(xs)
	if e == `.Chart.Dependencies` && d.dialect == Helm3 {
		// Helm 3's list is of pointers: printed as a whole (%v: directly, by quote or
		// toString, in "range can't iterate over ...") it shows their addresses, which
		// differ from run to run. Left out by construction: only its elements, its JSON
		// or its length are drawn.
		return d.pick([]string{`(first .Chart.Dependencies)`, `(.Chart.Dependencies | toJson)`, `(len .Chart.Dependencies)`})
	}
	return e
}

// objectLine draws a line printing a built-in object whole, through each of
// the ways a template prints a value (the object-printing axis): the action
// itself, print, printf's verbs, toString and the encoders. .Chart and
// .Subcharts hold pointers (Helm 3's dependencies, the subcharts' charts),
// whose addresses differ from run to run when printed by fmt: only their
// encodings are drawn, as is the root's.
func (d *draw) objectLine(i int) string {
	printers := []string{"print %s", `printf "%%v" %s`, `printf "%%s" %s`, `printf "%%+v" %s`, "toString %s", "toYaml %s", "toJson %s"}
	objects := []string{".Capabilities", ".Capabilities.KubeVersion", ".Capabilities.APIVersions",
		".Capabilities.HelmVersion", ".Release", ".Template", ".Files", ".Values"}
	obj := d.pick(objects)
	switch {
	case d.chance(0.25):
		obj = d.pick([]string{".Chart", ".Subcharts", "."})
		return fmt.Sprintf("  o%d: {{ %s | quote }}", i, fmt.Sprintf(d.pick(printers[5:]), obj))
	case d.chance(0.2):
		// The action itself, which prints as text/template does; quoted, the
		// others keep a line of YAML whatever they print.
		return fmt.Sprintf("  o%d: |-\n    {{ %s }}", i, obj)
	}
	return fmt.Sprintf("  o%d: {{ %s | quote }}", i, fmt.Sprintf(d.pick(printers), obj))
}

// line draws one line of a ConfigMap's data (or a comment) showing an expression's result.
func (d *draw) line(i int) string {
	var e string
	if d.chance(0.3) {
		e = d.builtin()
	} else {
		e = d.expr(d.r.IntN(3))
	}
	if d.chance(0.3) {
		e += " | " + d.pick([]string{"toJson", "toYaml", "quote", "toString", "len", "typeOf", "default \"d\"", "b64enc", "upper", "trim", "toPrettyJson", "kindOf"})
	}
	k := fmt.Sprintf("k%d", i)
	switch d.r.IntN(10) {
	case 0:
		return fmt.Sprintf("  # {{ %s }}", e)
	case 1:
		return fmt.Sprintf("  %s: |-\n    {{- %s | nindent 4 }}", k, e)
	case 2:
		return fmt.Sprintf("  %s: {{ if %s }}\"yes\"{{ else }}\"no\"{{ end }}", k, e)
	case 3:
		return fmt.Sprintf("  %s: {{ range $i, $v := (%s) }}{{ $i }}={{ $v }};{{ end }}", k, e)
	case 4:
		return fmt.Sprintf("  %s: {{ with %s }}{{ . | toJson | quote }}{{ end }}", k, e)
	case 5:
		return fmt.Sprintf("  %s: {{ %s }}", k, e)
	case 8:
		return fmt.Sprintf("  %s: {{ $o := %s }}{{ $o | quote }}/{{ $o }}", k, e)
	case 9:
		return fmt.Sprintf("  %s: {{ with %s }}{{ . }}{{ else }}none{{ end }}", k, e)
	default:
		return fmt.Sprintf("  %s: {{ %s | toJson | quote }}", k, e)
	}
}
