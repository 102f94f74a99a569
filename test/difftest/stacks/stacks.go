// Package stacks is the differential tester's stack mode: generated state
// files in helmfile's format (environments, bases, `---` parts, needs,
// selectors, templated values and .gotmpl values files) rendered by
// `helmfile template` with a Helm peer and by `kubectl chart stack template`,
// their stdout, stderr and exit status compared.
package stacks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Case is one generated stack: files by path and the flags after `template`.
type Case struct {
	Files map[string]string
	Args  []string
}

// Write puts the case's files under dir.
func (c Case) Write(dir string) error {
	for name, content := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// charts are the local charts every case carries: small, deterministic,
// showing the values they receive.
var charts = map[string]string{
	"charts/app/Chart.yaml":  "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"charts/app/values.yaml": "replicas: 1\ncolor: blue\nlist: []\n",
	"charts/app/templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
data:
  values: |
{{ toYaml .Values | indent 4 }}
`,
	"charts/job/Chart.yaml":  "apiVersion: v2\nname: job\nversion: 2.0.0\nappVersion: \"1\"\n",
	"charts/job/values.yaml": "image: busybox\n",
	"charts/job/templates/job.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
spec:
  template:
    spec:
      containers:
      - name: c
        image: {{ .Values.image }}
        args: [{{ .Values | toJson | quote }}]
`,
}

// Generate draws case i of seed: the same seed and index always give the same case.
func Generate(seed uint64, i int) Case {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	g := gen{r: r, files: map[string]string{}}
	for k, v := range charts {
		g.files[k] = v
	}
	return g.stack()
}

type gen struct {
	r     *rand.Rand
	files map[string]string
}

func (g *gen) chance(p float64) bool    { return g.r.Float64() < p }
func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

var (
	envNames   = []string{"default", "staging", "prod"}
	namespaces = []string{"ns-a", "ns-b"}
	tiers      = []string{"front", "back", "data"}
	colors     = []string{"red", "green", "blue", "teal"}
)

func (g *gen) stack() Case {
	var b strings.Builder
	// Environments, in the main file or in a base.
	envs := g.environments()
	useBase := g.chance(0.4)
	if useBase {
		g.files["bases/envs.yaml"] = envs
		b.WriteString("bases:\n- bases/envs.yaml\n")
	} else {
		b.WriteString(envs)
	}
	b.WriteString("---\n")
	n := 1 + g.r.IntN(5)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
	}
	b.WriteString("releases:\n")
	for i, name := range names {
		ns := g.pick(namespaces...)
		chart := g.pick("app", "job")
		fmt.Fprintf(&b, "- name: %s\n  namespace: %s\n  chart: ./charts/%s\n", name, ns, chart)
		fmt.Fprintf(&b, "  labels:\n    tier: %s\n", g.pick(tiers...))
		if i > 0 && g.chance(0.5) {
			// Needs only earlier releases: no cycles. fixNeeds writes the
			// namespace in, as text or as a template.
			dep := g.r.IntN(i)
			fmt.Fprintf(&b, "  needs:\n  - {{ .Values.nsOf.r%d | default \"x\" }}/%s\n", dep, names[dep])
		}
		if g.chance(0.2) {
			fmt.Fprintf(&b, "  installed: {{ ne .Environment.Name %q }}\n", g.pick(envNames...))
		}
		g.values(&b, name)
	}
	c := Case{Files: g.files}
	state := b.String()
	c.Files["helmfile.yaml.gotmpl"] = g.fixNeeds(state, names)
	c.Args = g.args(names)
	return c
}

// fixNeeds replaces the needs' lookups by the namespaces the releases got.
func (g *gen) fixNeeds(state string, names []string) string {
	ns := map[string]string{}
	var cur string
	for _, line := range strings.Split(state, "\n") {
		if strings.HasPrefix(line, "- name: ") {
			cur = strings.TrimPrefix(line, "- name: ")
		}
		if strings.HasPrefix(line, "  namespace: ") && cur != "" {
			ns[cur] = strings.TrimPrefix(line, "  namespace: ")
		}
	}
	for _, name := range names {
		form := g.pick("ns", "plain", "plain")
		repl := ns[name] + "/" + name
		if form == "plain" {
			repl = "{{ \"" + ns[name] + "\" }}/" + name
		}
		state = strings.ReplaceAll(state, "{{ .Values.nsOf."+name+" | default \"x\" }}/"+name, repl)
	}
	return state
}

func (g *gen) environments() string {
	var b strings.Builder
	b.WriteString("environments:\n")
	for _, e := range envNames {
		fmt.Fprintf(&b, "  %s:\n    values:\n", e)
		fmt.Fprintf(&b, "    - color: %s\n      replicas: %d\n", g.pick(colors...), 1+g.r.IntN(4))
		if g.chance(0.5) {
			file := fmt.Sprintf("env/%s.yaml.gotmpl", e)
			g.files[file] = fmt.Sprintf("region: {{ .Environment.Name }}-%s\nnested:\n  list: [%d, %d]\n", g.pick("eu", "us"), g.r.IntN(9), g.r.IntN(9))
			fmt.Fprintf(&b, "    - %s\n", file)
		}
		if g.chance(0.3) {
			fmt.Fprintf(&b, "    - missing-%s.yaml\n", e)
			b.WriteString("    missingFileHandler: " + g.pick("Warn", "Info", "Debug") + "\n")
		}
	}
	return b.String()
}

func (g *gen) values(b *strings.Builder, name string) {
	b.WriteString("  values:\n")
	if g.chance(0.5) {
		file := fmt.Sprintf("values/%s.yaml.gotmpl", name)
		g.files[file] = "color: {{ .Values.color | quote }}\nowner: {{ .Release.Name }}-{{ .Release.Namespace }}\nenv: {{ .Environment.Name }}\n" +
			"{{- if hasKey .Values \"region\" }}\nregion: {{ .Values.region }}\n{{- end }}\n"
		fmt.Fprintf(b, "  - %s\n", file)
	}
	fmt.Fprintf(b, "  - replicas: {{ .Values.replicas }}\n    list: [%q, %q]\n", g.pick(colors...), g.pick(tiers...))
	if g.chance(0.3) {
		fmt.Fprintf(b, "    computed: {{ .Values | get \"nested.list\" \"none\" | toJson | quote }}\n")
	}
	if g.chance(0.3) {
		fmt.Fprintf(b, "  set:\n  - name: extra.%s\n    value: %q\n", g.pick("a", "b"), g.pick("x,y", "plain", "{braces}"))
	}
	if g.chance(0.3) {
		fmt.Fprintf(b, "  setString:\n  - name: str\n    value: \"%d\"\n", g.r.IntN(100))
	}
}

func (g *gen) args(names []string) []string {
	var args []string
	if g.chance(0.6) {
		args = append(args, "-e", g.pick(envNames...))
	}
	switch g.r.IntN(4) {
	case 0:
		args = append(args, "-l", "tier="+g.pick(tiers...))
	case 1:
		args = append(args, "-l", "name="+g.pick(names...), "-l", "tier!="+g.pick(tiers...)+",namespace="+g.pick(namespaces...))
		if g.chance(0.5) {
			args = append(args, "--include-needs")
		}
	}
	return args
}
