// Package stacks is the differential tester's stack mode: generated state
// files in helmfile's format (environments, bases, `---` parts, needs,
// selectors, templated values and .gotmpl values files) rendered by
// `helmfile template` with a Helm peer and by `kubectl chart stack template`,
// their stdout, stderr and exit status compared.
package stacks

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
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

// StateFiles prints the case's files but the charts, for a report.
func (c Case) StateFiles() string {
	names := make([]string, 0, len(c.Files))
	for name := range c.Files {
		if _, chart := charts[name]; !chart {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "--- %s\n%s", name, c.Files[name])
	}
	return b.String()
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

// chartVersions are the versions the repository serves.
var chartVersions = map[string]string{"stable/app": "0.1.0", "stable/job": "2.0.0"}

// RepoFiles are what the chart repository serves: index.yaml (charts at
// base, the repository's URL) and each chart as an archive.
func RepoFiles(base string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var index strings.Builder
	index.WriteString("apiVersion: v1\nentries:\n")
	for _, name := range []string{"app", "job"} {
		version := chartVersions["stable/"+name]
		archive := fmt.Sprintf("%s-%s.tgz", name, version)
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		files := make([]string, 0, len(charts))
		for path := range charts {
			if strings.HasPrefix(path, "charts/"+name+"/") {
				files = append(files, path)
			}
		}
		sort.Strings(files)
		for _, path := range files {
			body := []byte(charts[path])
			hdr := &tar.Header{Name: strings.TrimPrefix(path, "charts/"), Mode: 0o644, Size: int64(len(body))}
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, err
			}
			if _, err := tw.Write(body); err != nil {
				return nil, err
			}
		}
		if err := tw.Close(); err != nil {
			return nil, err
		}
		if err := gz.Close(); err != nil {
			return nil, err
		}
		out[archive] = buf.Bytes()
		fmt.Fprintf(&index, "  %s:\n  - apiVersion: v2\n    name: %s\n    version: %s\n    urls:\n    - %s/%s\n", name, name, version, strings.TrimSuffix(base, "/"), archive)
	}
	out["index.yaml"] = []byte(index.String())
	return out, nil
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
	// Environments and state values, in the main file or in a base the main
	// file layers over.
	envs := g.environments()
	state := g.stateValues("")
	if g.chance(0.4) {
		g.files["bases/envs.yaml"] = envs + state + g.helmDefaults()
		b.WriteString("bases:\n- bases/envs.yaml\n")
		if g.chance(0.5) {
			// The main file's state values over the base's.
			b.WriteString(g.stateValues("main"))
		}
	} else {
		b.WriteString(envs + state + g.helmDefaults())
	}
	if g.chance(0.25) {
		g.subHelmfile(&b)
	}
	b.WriteString("---\n")
	// Charts from a repository the test serves on 127.0.0.1.
	useRepo := g.chance(0.3)
	if useRepo {
		b.WriteString("repositories:\n- name: stable\n  url: {{ requiredEnv \"DIFFTEST_REPO_URL\" }}\n")
	}
	n := 1 + g.r.IntN(5)
	names := make([]string, n)
	nss := make([]string, n)
	b.WriteString("releases:\n")
	for i := range names {
		tier := g.pick(tiers...)
		names[i], nss[i] = fmt.Sprintf("r%d", i), g.pick(namespaces...)
		name, ns := names[i], nss[i]
		if g.chance(0.2) {
			// A release template: rendered with the release's own data.
			names[i] = tier + "-" + names[i]
			name = fmt.Sprintf("\"{{`{{ .Release.Labels.tier }}`}}-r%d\"", i)
		}
		if g.chance(0.2) {
			ns = "\"{{`{{ .Values.nsBase }}`}}-" + strings.TrimPrefix(nss[i], "ns-") + "\""
		}
		chart := "./charts/" + g.pick("app", "job")
		if useRepo && g.chance(0.6) {
			chart = "stable/" + g.pick("app", "job")
		}
		fmt.Fprintf(&b, "- name: %s\n  namespace: %s\n  chart: %s\n", name, ns, chart)
		if strings.HasPrefix(chart, "stable/") && g.chance(0.5) {
			fmt.Fprintf(&b, "  version: %q\n", g.pick(">=0.1.0", chartVersions[chart]))
		}
		fmt.Fprintf(&b, "  labels:\n    tier: %s\n", tier)
		if i > 0 && g.chance(0.5) {
			// Needs only earlier releases: no cycles.
			dep := g.r.IntN(i)
			need := nss[dep] + "/" + names[dep]
			if g.chance(0.5) {
				need = "{{ \"" + nss[dep] + "\" }}/" + names[dep]
			}
			fmt.Fprintf(&b, "  needs:\n  - %s\n", need)
		}
		if g.chance(0.2) {
			fmt.Fprintf(&b, "  installed: {{ ne .Environment.Name %q }}\n", g.pick(envNames...))
		}
		if g.chance(0.2) {
			b.WriteString("  condition: feature.enabled\n")
		}
		if g.chance(0.2) {
			fmt.Fprintf(&b, "  createNamespace: %v\n", g.chance(0.5))
		}
		g.values(&b, fmt.Sprintf("r%d", i))
	}
	c := Case{Files: g.files}
	c.Files["helmfile.yaml.gotmpl"] = b.String()
	c.Args = g.args(names, nss)
	return c
}

// stateValues are the state's own `values:` (under the environment's): an
// inline map and sometimes a values file; who tells layers apart.
func (g *gen) stateValues(who string) string {
	if !g.chance(0.6) {
		return ""
	}
	var b strings.Builder
	b.WriteString("values:\n")
	if g.chance(0.4) {
		file := "state/common" + who + ".yaml"
		g.files[file] = fmt.Sprintf("team: %s\nnsBase: ns\nfeature:\n  enabled: %v\n", g.pick("core", "edge"), g.chance(0.5))
		fmt.Fprintf(&b, "- %s\n", file)
	}
	fmt.Fprintf(&b, "- nsBase: ns\n  color: %s\n  owner: %s%s\n", g.pick(colors...), g.pick("ops", "dev"), who)
	if g.chance(0.8) {
		fmt.Fprintf(&b, "  feature:\n    enabled: %v\n", g.chance(0.6))
	}
	return b.String()
}

// helmDefaults are defaults that do not change what `template` prints.
func (g *gen) helmDefaults() string {
	if !g.chance(0.3) {
		return ""
	}
	return fmt.Sprintf("helmDefaults:\n  wait: %v\n  timeout: %d\n  createNamespace: %v\n", g.chance(0.5), 60*(1+g.r.IntN(5)), g.chance(0.5))
}

// subHelmfile adds a sub-stack of one or two releases, sometimes with values
// passed down.
func (g *gen) subHelmfile(b *strings.Builder) {
	var sub strings.Builder
	sub.WriteString("environments:\n")
	for _, e := range envNames {
		fmt.Fprintf(&sub, "  %s:\n    values:\n    - color: %s\n", e, g.pick(colors...))
	}
	sub.WriteString("---\nreleases:\n")
	for i := 0; i < 1+g.r.IntN(2); i++ {
		fmt.Fprintf(&sub, "- name: sub%d\n  namespace: %s\n  chart: ../charts/app\n  labels:\n    tier: %s\n", i, g.pick(namespaces...), g.pick(tiers...))
		sub.WriteString("  values:\n  - color: {{ .Values.color }}\n    from: {{ .Values | get \"parent\" \"none\" }}\n")
	}
	g.files["sub/helmfile.yaml.gotmpl"] = sub.String()
	b.WriteString("helmfiles:\n")
	if g.chance(0.5) {
		b.WriteString("- sub/helmfile.yaml.gotmpl\n")
		return
	}
	fmt.Fprintf(b, "- path: sub/helmfile.yaml.gotmpl\n  values:\n  - parent: %s\n", g.pick(colors...))
}

func (g *gen) environments() string {
	var b strings.Builder
	b.WriteString("environments:\n")
	for _, e := range envNames {
		fmt.Fprintf(&b, "  %s:\n    values:\n", e)
		fmt.Fprintf(&b, "    - color: %s\n      replicas: %d\n      nsBase: ns\n", g.pick(colors...), 1+g.r.IntN(4))
		if g.chance(0.85) {
			fmt.Fprintf(&b, "      feature:\n        enabled: %v\n", g.chance(0.5))
		}
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

func (g *gen) args(names, nss []string) []string {
	var args []string
	if g.chance(0.6) {
		args = append(args, "-e", g.pick(envNames...))
	}
	switch g.r.IntN(4) {
	case 0:
		args = append(args, "-l", "tier="+g.pick(tiers...))
	case 1:
		args = append(args, "-l", "name="+g.pick(names...), "-l", "tier!="+g.pick(tiers...)+",namespace="+g.pick(nss...))
		if g.chance(0.5) {
			args = append(args, "--include-needs")
		}
	}
	return args
}
