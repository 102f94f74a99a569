//go:build e2e

package sharing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// argoStep is one command line that Argo CD's repo server runs (util/helm/cmd.go
// of argoproj/argo-cd: template, dependency build, repo add, registry login and
// logout, pull from a repository and from a registry, show, version), in a
// directory of the home, with stdin.
type argoStep struct {
	name  string
	dir   string
	stdin string
	args  []string
	// files lists a directory whose entries are compared after the step.
	files string
}

// argoHome is a home laid out as Argo CD lays out each helm run: its own
// XDG directories and HELM_CONFIG_HOME, a chart in app/ needing a dependency from
// a repository, values files beside it, and `helm` on $PATH.
type argoHome struct {
	*home
	helm string
}

func newArgoHome(t *testing.T, program string, env ...string) *argoHome {
	t.Helper()
	h := newHome(t)
	h.env = append(h.env, env...)
	h.env = append(h.env, "HELM_CONFIG_HOME="+h.path("config"))
	binDir := h.path("bin")
	mkdir(t, binDir)
	link := filepath.Join(binDir, "helm")
	if err := os.Symlink(program, link); err != nil {
		t.Fatal(err)
	}
	return &argoHome{home: h, helm: link}
}

// run runs the step's command line as `helm` (a link named helm), in dir.
func (a *argoHome) run(s argoStep) (stdout, stderr string, exit int) {
	cmd := exec.Command(a.helm, s.args...)
	cmd.Dir = a.path(s.dir)
	cmd.Env = a.env
	cmd.Stdin = strings.NewReader(s.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		exit = -1
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), exit
}

// listing is the names and sizes of the files under dir, one a line.
func (a *argoHome) listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	root := a.path(dir)
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if info.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Archives are compared whole; an index carries its generation time.
		if strings.HasSuffix(rel, ".yaml") {
			b = regexp.MustCompile(`generated: .*`).ReplaceAll(b, []byte("generated: TIME"))
		}
		sum := sha256.Sum256(b)
		lines = append(lines, rel+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// The command lines Argo CD's repo server runs, run through a link named helm to
// our binary and through Helm v4.3.1 (and, in the Helm 3 dialect, v3.22.0), each in
// a home of its own against the same repository and registries on 127.0.0.1:
// stdout, stderr, exit status and the files written are Helm's.
func TestArgoCDCommandLinesLikeHelm(t *testing.T) {
	fixtures := newHome(t)
	fixtures.kc("create", "sub")
	fixtures.kc("package", "sub", "-d", "repo")
	repo := serveDir(t, fixtures.path("repo"), "argo", "s3cret")
	fixtures.kc("repo", "index", fixtures.path("repo"), "--url", repo.URL)
	open := startRegistry(t, "", "")
	fixtures.kc("push", "repo/sub-0.1.0.tgz", "oci://"+open+"/charts", "--plain-http")
	locked := startRegistry(t, "argo", "s3cret")

	for _, peer := range []struct{ dialect, version string }{{"helm4", "v4.3.1"}, {"helm3", "v3.22.0"}} {
		t.Run(peer.dialect, func(t *testing.T) {
			helm := helmPeerAt(t, peer.version)
			theirs := newArgoHome(t, helm)
			ours := newArgoHome(t, bin, "KUBECTL_CHART_COMPAT="+peer.dialect)
			for _, a := range []*argoHome{theirs, ours} {
				writeArgoChart(t, a, repo.URL)
				mkdir(t, a.path("pulled"))
				mkdir(t, a.path("pulled-no"))
				mkdir(t, a.path("oci-pulled"))
				mkdir(t, a.path("oci-pulled-tls"))
			}
			steps := []argoStep{
				{name: "version", args: []string{"version", "--short"}},
				{name: "repo add", args: []string{"repo", "add", "--username", "argo", "--password", "s3cret", "--pass-credentials", "argo-repo", repo.URL}},
				{name: "repo add again", args: []string{"repo", "add", "--username", "argo", "--password", "s3cret", "--pass-credentials", "argo-repo", repo.URL}},
				{name: "dependency build", dir: "app", args: []string{"dependency", "build"}, files: "app/charts"},
				{name: "show chart", dir: "app", args: []string{"show", "chart", "."}},
				{name: "show values", dir: "app", args: []string{"show", "values", "values-prod.yaml"}},
				{name: "template", dir: "app", args: []string{"template", ".", "--name-template", "argo-app", "--namespace", "argo-ns",
					"--kube-version", "1.30", "--set", `image.tag=1.2\,3`, "--set-string", "replicaCount=3", "--set-file", "extra=extra.txt",
					"--values", "values-prod.yaml", "--values", "extra-values.yaml", "--api-versions", "monitoring.coreos.com/v1",
					"--api-versions", "networking.k8s.io/v1/Ingress", "--include-crds", "--skip-schema-validation", "--skip-tests"}},
				{name: "template, missing values", dir: "app", args: []string{"template", ".", "--name-template", "argo-app", "--namespace", "argo-ns", "--values", "missing.yaml"}},
				{name: "template, bad set", dir: "app", args: []string{"template", ".", "--name-template", "argo-app", "--set", "a[=b"}},
				// Argo CD pulls into a directory it made; a missing one is Helm's error.
				{name: "pull from a repository", args: []string{"pull", "--destination", "pulled", "--version", "0.1.0", "--username", "argo", "--password", "s3cret", "--repo", repo.URL, "sub", "--pass-credentials"}, files: "pulled"},
				{name: "pull, wrong password", args: []string{"pull", "--destination", "pulled-no", "--version", "0.1.0", "--username", "argo", "--password", "nope", "--repo", repo.URL, "sub"}},
				{name: "pull, no destination", args: []string{"pull", "--destination", "missing", "--version", "0.1.0", "--username", "argo", "--password", "s3cret", "--repo", repo.URL, "sub"}},
				{name: "registry logout, never logged in", args: []string{"registry", "logout", locked}},
				{name: "registry login, wrong password", stdin: "nope", args: []string{"registry", "login", locked, "--username", "argo", "--password-stdin", "--plain-http"}},
				{name: "registry login", stdin: "s3cret", args: []string{"registry", "login", locked, "--username", "argo", "--password-stdin", "--plain-http"}},
				{name: "registry login, insecure TLS", stdin: "s3cret", args: []string{"registry", "login", locked, "--username", "argo", "--password-stdin", "--insecure"}},
				{name: "pull from a registry", args: []string{"pull", "oci://" + open + "/charts/sub", "--version", "0.1.0", "--destination", "oci-pulled", "--plain-http"}, files: "oci-pulled"},
				{name: "pull from a registry, no --plain-http", args: []string{"pull", "oci://" + open + "/charts/sub", "--version", "0.1.0", "--destination", "oci-pulled-tls"}, files: "oci-pulled-tls"},
				{name: "pull from a registry, no such version", args: []string{"pull", "oci://" + open + "/charts/sub:9.9.9", "--destination", "oci-pulled", "--plain-http"}},
				{name: "pull from a registry, no such chart", args: []string{"pull", "oci://" + open + "/charts/nothing", "--version", "0.1.0", "--destination", "oci-pulled", "--plain-http"}},
				{name: "registry logout", args: []string{"registry", "logout", locked}},
				{name: "registry logout again", args: []string{"registry", "logout", locked}},
			}
			for _, s := range steps {
				ho, he, hx := theirs.run(s)
				oo, oe, ox := ours.run(s)
				norm := func(a *argoHome, s string) string {
					s = strings.ReplaceAll(s, a.dir, "HOME")
					// A temporary file's random name.
					s = regexp.MustCompile(`\.tgz[0-9]+:`).ReplaceAllString(s, ".tgzRANDOM:")
					return regexp.MustCompile(`\+kubectl-chart\.[0-9A-Za-z.-]+`).ReplaceAllString(s, "")
				}
				ho, he, oo, oe = norm(theirs, ho), norm(theirs, he), norm(ours, oo), norm(ours, oe)
				if ho != oo || he != oe || hx != ox {
					t.Errorf("%s: differs from Helm %s\n--- helm (exit %d)\n%s%s\n--- ours (exit %d)\n%s%s", s.name, peer.version, hx, ho, he, ox, oo, oe)
				}
				if s.files != "" {
					if h, o := theirs.listing(t, s.files), ours.listing(t, s.files); h != o {
						t.Errorf("%s: files in %s differ from Helm's\n--- helm\n%s\n--- ours\n%s", s.name, s.files, h, o)
					}
				}
			}
		})
	}
}

// writeArgoChart writes app/, a chart depending on sub from the repository at
// url, with values files and a file for --set-file.
func writeArgoChart(t *testing.T, a *argoHome, url string) {
	t.Helper()
	files := map[string]string{
		"app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 0.1.0\nappVersion: \"1.0\"\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: " + url + "\n",
		"app/values.yaml":       "replicaCount: 1\nimage:\n  tag: latest\nextra: \"\"\n",
		"app/values-prod.yaml":  "replicaCount: 2\n",
		"app/extra-values.yaml": "image:\n  pullPolicy: Always\n",
		"app/extra.txt":         "from a file\n",
		"app/crds/crd.yaml":     "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n",
		"app/templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
data:
  replicas: {{ .Values.replicaCount | quote }}
  tag: {{ .Values.image.tag | quote }}
  extra: {{ .Values.extra | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  monitoring: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}
  ingress: {{ .Capabilities.APIVersions.Has "networking.k8s.io/v1/Ingress" | quote }}
  pullPolicy: {{ .Values.image.pullPolicy | default "none" | quote }}
`,
		"app/templates/tests/test.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: test\n  annotations: {helm.sh/hook: test}\nspec:\n  containers: [{name: t, image: busybox}]\n",
	}
	for name, body := range files {
		p := a.path(name)
		mkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
