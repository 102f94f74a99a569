//go:build e2e

package sharing

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// helmRun runs the Helm peer in h's directories and fails the test on error.
func helmRun(t *testing.T, h *home, helm string, args ...string) string {
	t.Helper()
	out, errOut, err := h.exec(helm, args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// TestCreatedChartRendersLikeHelm: a freshly created chart renders byte-identically with
// Helm v3.22.0 and with us, with defaults and with every optional template switched on,
// and passes Helm's own lint --strict.
func TestCreatedChartRendersLikeHelm(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	h.kc("create", "web")
	helmRun(t, h, helm, "lint", "--strict", "web")
	for _, extra := range [][]string{
		nil,
		{"--set", "ingress.enabled=true,autoscaling.enabled=true,autoscaling.targetMemoryUtilizationPercentage=70,service.type=NodePort,serviceAccount.create=false"},
		{"--set", "service.type=LoadBalancer,podAnnotations.a=b,podLabels.c=d,ingress.enabled=true,ingress.tls[0].secretName=s,ingress.tls[0].hosts[0]=x.example"},
		{"--kube-version", "1.29.0", "--set", "image.tag=1.2.3,resources.limits.cpu=100m,nodeSelector.disk=ssd"},
	} {
		args := append([]string{"template", "rel", "web", "--namespace", "prod"}, extra...)
		ours := h.kc(append(args, "--compat", "helm3")...)
		theirs := helmRun(t, h, helm, args...)
		if ours != theirs {
			t.Errorf("template %v differs from Helm's:\n--- ours\n%s\n--- helm\n%s", extra, ours, theirs)
		}
		if !strings.Contains(ours, "kind: Deployment") {
			t.Errorf("template %v rendered no Deployment", extra)
		}
	}
	// Helm also renders the NOTES through install --dry-run; compare the archive too.
	h.kc("package", "web", "-d", "dist")
	ours := h.kc("template", "rel", "dist/web-0.1.0.tgz", "--compat", "helm3")
	if theirs := helmRun(t, h, helm, "template", "rel", "dist/web-0.1.0.tgz"); ours != theirs {
		t.Error("Helm renders our archive differently")
	}
}

// TestHelmPullsWhatWeServe and we pull what Helm packages, through HTTP repositories.
func TestHelmInteropRepository(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)

	// Ours, served with basic auth, pulled by Helm.
	h.kc("create", "web")
	h.kc("package", "web", "-d", "ours")
	srv := serveDir(t, h.path("ours"), "alice", "s3cret")
	h.kc("repo", "index", h.path("ours"), "--url", srv.URL)
	helmRun(t, h, helm, "repo", "add", "ours", srv.URL, "--username", "alice", "--password", "s3cret")
	if out := helmRun(t, h, helm, "search", "repo", "ours/web"); !strings.Contains(out, "ours/web") {
		t.Errorf("helm search:\n%s", out)
	}
	mkdir(t, h.path("helm-pulled"))
	helmRun(t, h, helm, "pull", "ours/web", "-d", "helm-pulled")
	served, _ := os.ReadFile(h.path("ours", "web-0.1.0.tgz"))
	pulled, err := os.ReadFile(h.path("helm-pulled", "web-0.1.0.tgz"))
	if err != nil || !bytes.Equal(served, pulled) {
		t.Fatalf("Helm pulled something else (%v)", err)
	}
	if a, b := helmRun(t, h, helm, "template", "rel", "ours/web"), h.kc("template", "rel", "web", "--compat", "helm3"); a != b {
		t.Error("Helm renders the chart from our repository differently")
	}

	// Helm's, packaged and indexed by Helm, pulled by us.
	helmRun(t, h, helm, "create", "hchart")
	helmRun(t, h, helm, "package", "hchart", "-d", "theirs", "--version", "1.2.3")
	srv2 := serveDir(t, h.path("theirs"), "", "")
	helmRun(t, h, helm, "repo", "index", h.path("theirs"), "--url", srv2.URL)
	h.kc("repo", "add", "theirs", srv2.URL)
	if out := h.kc("search", "repo", "hchart"); !strings.Contains(out, "theirs/hchart") || !strings.Contains(out, "1.2.3") {
		t.Errorf("search:\n%s", out)
	}
	h.kc("pull", "theirs/hchart", "--untar", "--untardir", "kc-pulled")
	if _, err := os.Stat(h.path("kc-pulled", "hchart", "templates", "deployment.yaml")); err != nil {
		t.Error(err)
	}
	if a, b := h.kc("template", "rel", "theirs/hchart", "--compat", "helm3"), helmRun(t, h, helm, "template", "rel", "theirs/hchart-1.2.3.tgz"); a != b {
		t.Error("we render Helm's chart from its repository differently from Helm")
	}
}

// TestHelmInteropOCI: Helm pulls what we push, and we pull what Helm pushes.
func TestHelmInteropOCI(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	host := startRegistry(t, "", "")

	h.kc("create", "web")
	h.kc("package", "web", "-d", "dist")
	h.kc("push", "dist/web-0.1.0.tgz", "oci://"+host+"/ours", "--plain-http")
	mkdir(t, h.path("helm-pulled"))
	helmRun(t, h, helm, "pull", "oci://"+host+"/ours/web", "--version", "0.1.0", "--plain-http", "-d", "helm-pulled")
	a, _ := os.ReadFile(h.path("dist", "web-0.1.0.tgz"))
	b, err := os.ReadFile(h.path("helm-pulled", "web-0.1.0.tgz"))
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("Helm pulled something else (%v)", err)
	}
	if x, y := helmRun(t, h, helm, "template", "rel", "oci://"+host+"/ours/web", "--version", "0.1.0", "--plain-http"), h.kc("template", "rel", "web", "--compat", "helm3"); x != y {
		t.Error("Helm renders our pushed chart differently")
	}

	helmRun(t, h, helm, "create", "hchart")
	helmRun(t, h, helm, "package", "hchart", "-d", "hdist")
	helmRun(t, h, helm, "push", "hdist/hchart-0.1.0.tgz", "oci://"+host+"/theirs", "--plain-http")
	mkdir(t, h.path("kc-pulled"))
	h.kc("pull", "oci://"+host+"/theirs/hchart:0.1.0", "--plain-http", "-d", "kc-pulled")
	a, _ = os.ReadFile(h.path("hdist", "hchart-0.1.0.tgz"))
	b, err = os.ReadFile(h.path("kc-pulled", "hchart-0.1.0.tgz"))
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("we pulled something else (%v)", err)
	}
	if x, y := h.kc("template", "rel", "oci://"+host+"/theirs/hchart", "--plain-http", "--compat", "helm3"), helmRun(t, h, helm, "template", "rel", "hchart"); x != y {
		t.Error("we render Helm's pushed chart differently from Helm")
	}
}

// TestHelmInteropProvenance: Helm verifies what we sign and we verify what Helm signs;
// a .prov for other bytes fails.
func TestHelmInteropProvenance(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	secret, public := writeKeyrings(t, h.path("keys"))

	h.kc("create", "web")
	h.kc("package", "web", "-d", "dist", "--sign", "--key", "Chart Signer", "--keyring", secret)
	helmRun(t, h, helm, "verify", "dist/web-0.1.0.tgz", "--keyring", public)
	if out := h.kc("verify", "dist/web-0.1.0.tgz", "--keyring", public); !strings.Contains(out, "Chart Hash Verified: sha256:") {
		t.Errorf("verify:\n%s", out)
	}

	helmRun(t, h, helm, "create", "hchart")
	helmRun(t, h, helm, "package", "hchart", "-d", "hdist", "--sign", "--key", "Chart Signer", "--keyring", secret)
	h.kc("verify", "hdist/hchart-0.1.0.tgz", "--keyring", public)

	// pull --verify through a repository serving the .prov next to the archive.
	srv := serveDir(t, h.path("dist"), "", "")
	h.kc("repo", "index", h.path("dist"), "--url", srv.URL)
	h.kc("repo", "add", "signed", srv.URL)
	mkdir(t, h.path("verified"))
	h.kc("pull", "signed/web", "--verify", "--keyring", public, "-d", "verified")
	if _, err := os.Stat(h.path("verified", "web-0.1.0.tgz.prov")); err != nil {
		t.Error(err)
	}

	// Through an OCI registry: the .prov travels as a layer; we and Helm verify on pull.
	host := startRegistry(t, "", "")
	h.kc("push", "dist/web-0.1.0.tgz", "oci://"+host+"/signed", "--plain-http")
	mkdir(t, h.path("oci-verified"))
	h.kc("pull", "oci://"+host+"/signed/web:0.1.0", "--verify", "--keyring", public, "--plain-http", "-d", "oci-verified")
	mkdir(t, h.path("helm-oci-verified"))
	helmRun(t, h, helm, "pull", "oci://"+host+"/signed/web", "--version", "0.1.0", "--verify", "--keyring", public, "--plain-http", "-d", "helm-oci-verified")
	helmRun(t, h, helm, "push", "hdist/hchart-0.1.0.tgz", "oci://"+host+"/signed", "--plain-http")
	h.kc("pull", "oci://"+host+"/signed/hchart:0.1.0", "--verify", "--keyring", public, "--plain-http", "-d", "oci-verified")

	// A .prov that does not match its archive.
	if err := os.WriteFile(h.path("dist", "web-0.1.0.tgz.prov"), mustRead(t, h.path("hdist", "hchart-0.1.0.tgz.prov")), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg := h.kcFail("verify", "dist/web-0.1.0.tgz", "--keyring", public); !strings.Contains(msg, `provenance does not contain a SHA for a file named "web-0.1.0.tgz"`) {
		t.Errorf("mismatched .prov: %s", msg)
	}
	if msg := h.kcFail("pull", "signed/web", "--verify", "--keyring", public, "-d", "refused"); !strings.Contains(msg, `provenance does not contain a SHA for a file named "web-0.1.0.tgz"`) {
		t.Errorf("pull --verify with a mismatched .prov: %s", msg)
	}
	if _, err := os.Stat(h.path("refused", "web-0.1.0.tgz")); err == nil {
		t.Error("pull --verify kept an archive that failed verification")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeKeyrings writes a secret and a public keyring (GnuPG 1 format) for a fresh key.
func writeKeyrings(t *testing.T, dir string) (secret, public string) {
	t.Helper()
	e, err := openpgp.NewEntity("Chart Signer", "", "signer@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var s, p bytes.Buffer
	if err := e.SerializePrivate(&s, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(&p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	secret, public = filepath.Join(dir, "secring.gpg"), filepath.Join(dir, "pubring.gpg")
	if err := os.WriteFile(secret, s.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, p.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return secret, public
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHelmInteropLock: Helm builds from the Chart.lock we write and we build from Helm's.
func TestHelmInteropLock(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	h.kc("create", "sub")
	h.kc("create", "app")
	cy := string(mustRead(t, h.path("app", "Chart.yaml"))) + "dependencies:\n- name: sub\n  version: \">=0.1.0\"\n  repository: file://../sub\n"
	if err := os.WriteFile(h.path("app", "Chart.yaml"), []byte(cy), 0o644); err != nil {
		t.Fatal(err)
	}
	h.kc("dependency", "update", "app")
	ours := mustRead(t, h.path("app", "Chart.lock"))
	if err := os.RemoveAll(h.path("app", "charts")); err != nil {
		t.Fatal(err)
	}
	helmRun(t, h, helm, "dependency", "build", "app")
	helmRun(t, h, helm, "dependency", "update", "app")
	if theirs := mustRead(t, h.path("app", "Chart.lock")); !bytes.Equal(ours, theirs) {
		t.Errorf("Chart.lock differs from Helm's:\n--- ours\n%s\n--- helm\n%s", ours, theirs)
	}
	if err := os.RemoveAll(h.path("app", "charts")); err != nil {
		t.Fatal(err)
	}
	h.kc("dependency", "build", "app")
	if a, b := h.kc("template", "rel", "app", "--compat", "helm3"), helmRun(t, h, helm, "template", "rel", "app"); a != b {
		t.Error("app with dependencies renders differently from Helm")
	}
}

// TestHelmOutputParity: search, repo list, show and dependency list print what Helm prints.
func TestHelmOutputParity(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	h.kc("create", "sub")
	h.kc("create", "app")
	cy := string(mustRead(t, h.path("app", "Chart.yaml"))) + "dependencies:\n- name: sub\n  version: \">=0.1.0\"\n  repository: file://../sub\n"
	if err := os.WriteFile(h.path("app", "Chart.yaml"), []byte(cy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.path("app", "README.md"), []byte("# app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.kc("dependency", "update", "app")
	h.kc("package", "app", "sub", "-d", "repo")
	h.kc("package", "sub", "--version", "0.2.0-beta.1", "-d", "repo")
	srv := serveDir(t, h.path("repo"), "", "")
	h.kc("repo", "index", h.path("repo"), "--url", srv.URL)
	h.kc("repo", "add", "loc", srv.URL)
	helmRun(t, h, helm, "repo", "add", "loc", srv.URL)
	for _, args := range [][]string{
		{"search", "repo"},
		{"search", "repo", "sub", "--versions", "--devel"},
		{"search", "repo", "nothing-matches"},
		{"search", "repo", "-r", "^su"},
		{"search", "repo", "-r", "app$"},
		{"search", "repo", "helm", "chart"},
		{"search", "repo", "sub", "--version", ">=0.1.0-0"},
		{"search", "repo", "app", "--max-col-width", "12"},
		{"search", "repo", "-o", "json"},
		{"repo", "list"},
		{"repo", "list", "-o", "yaml"},
		{"show", "all", "loc/app"},
		{"show", "chart", "repo/app-0.1.0.tgz"},
		{"show", "readme", "app"},
		{"show", "values", "loc/sub", "--devel"},
		{"dependency", "list", "app"},
		{"repo", "update"},
		{"repo", "add", "loc", srv.URL},
	} {
		if ours, theirs := h.kc(args...), helmRun(t, h, helm, args...); ours != theirs {
			t.Errorf("%s differs from Helm:\n--- ours\n%s\n--- helm\n%s", strings.Join(args, " "), ours, theirs)
		}
	}
}

// TestLintAgreesWithHelm: on every chart of the conformance corpus, lint and lint --strict
// pass or fail exactly when Helm's do.
func TestLintAgreesWithHelm(t *testing.T) {
	corpus := prereq.Corpus(t)
	charts, _ := filepath.Glob(filepath.Join(corpus, "corpus", "*", "chart"))
	if len(charts) == 0 {
		t.Fatalf("no charts in the conformance corpus at %s", corpus)
	}
	helm := helmPeer(t)
	h := newHome(t)
	for _, c := range charts {
		for _, args := range [][]string{{"lint", c}, {"lint", "--strict", c}} {
			_, _, ourErr := h.exec(bin, append(args, "--compat", "helm3")...)
			_, _, helmErr := h.exec(helm, args...)
			if (ourErr == nil) != (helmErr == nil) {
				t.Errorf("%s: ours failed=%v, Helm's failed=%v", strings.Join(args, " "), ourErr != nil, helmErr != nil)
			}
		}
	}
}

// TestCreateMatchesHelmCreate: the manifests of a chart from our create render
// byte-identically to those of a chart from Helm's create, with defaults and with every
// optional part switched on (cmd/kubectl-chart's TestCreateMatchesHelm compares the files).
func TestCreateMatchesHelmCreate(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	h.kc("create", "web")
	mkdir(t, h.path("helm"))
	helmRun(t, h, helm, "create", h.path("helm", "web"))
	for _, set := range []string{
		"",
		"ingress.enabled=true,autoscaling.enabled=true,autoscaling.targetMemoryUtilizationPercentage=70,service.type=NodePort,serviceAccount.create=false",
		"service.type=LoadBalancer,podAnnotations.a=b,podLabels.c=d,ingress.enabled=true,ingress.className=nginx,ingress.tls[0].secretName=s,ingress.tls[0].hosts[0]=x.example," +
			"resources.limits.cpu=1,volumes[0].name=v,volumeMounts[0].name=v,nodeSelector.a=b,tolerations[0].key=k,affinity.x=y,imagePullSecrets[0].name=p," +
			"podSecurityContext.fsGroup=1,securityContext.runAsUser=2,serviceAccount.annotations.q=r,serviceAccount.name=sa,fullnameOverride=custom",
	} {
		args := []string{"template", "rel"}
		if set != "" {
			args = append(args, "--set", set)
		}
		// The peer is Helm 3: render in its dialect (template's default is Helm 4's).
		ours := h.kc(append(args, "web", "--compat", "helm3")...)
		theirs := helmRun(t, h, helm, append(args, h.path("helm", "web"))...)
		if ours != theirs {
			t.Errorf("--set %q: our created chart renders differently from Helm's:\n--- ours\n%s\n--- helm\n%s", set, ours, theirs)
		}
	}
}

// TestRegistryCredentialsFileIsDockerCompatible: Helm logs in with the credentials file
// we write, and we use the one Helm writes.
func TestRegistryCredentialsFileIsDockerCompatible(t *testing.T) {
	helm := helmPeer(t)
	h := newHome(t)
	host := startRegistry(t, "carol", "pa55")
	ours := h.path("config", "kubectl-chart", "registry", "config.json")
	// Helm's file is ours too by default ($HELM_CONFIG_HOME is set): a file
	// of our own shows Helm reads what we write.
	h.kc("registry", "login", host, "-u", "carol", "-p", "pa55", "--plain-http", "--registry-config", ours)
	h.kc("create", "web")
	h.kc("package", "web", "-d", "dist")
	h.kc("push", "dist/web-0.1.0.tgz", "oci://"+host+"/c", "--plain-http", "--registry-config", ours)
	mkdir(t, h.path("helm-pulled"))
	helmRun(t, h, helm, "pull", "oci://"+host+"/c/web", "--version", "0.1.0", "--plain-http", "--registry-config", ours, "-d", "helm-pulled")

	theirs := h.path("helm-registry.json")
	helmRun(t, h, helm, "registry", "login", host, "--username", "carol", "--password", "pa55", "--plain-http", "--registry-config", theirs)
	mkdir(t, h.path("kc-pulled"))
	h.kc("pull", "oci://"+host+"/c/web:0.1.0", "--plain-http", "--registry-config", theirs, "-d", "kc-pulled")
}

// TestPackageContentsMatchHelm: for every chart of the conformance corpus that packages,
// our archive holds exactly the files, with exactly the bytes, of Helm's archive.
func TestPackageContentsMatchHelm(t *testing.T) {
	corpus := prereq.Corpus(t)
	charts, _ := filepath.Glob(filepath.Join(corpus, "corpus", "*", "chart"))
	if len(charts) == 0 {
		t.Fatalf("no charts in the conformance corpus at %s", corpus)
	}
	helm := helmPeer(t)
	h := newHome(t)
	compared := 0
	for i, c := range charts {
		ours, theirs := h.path("ours", strconv.Itoa(i)), h.path("theirs", strconv.Itoa(i))
		mkdir(t, theirs)
		if _, _, err := h.exec(bin, "package", c, "-d", ours); err != nil {
			if _, _, herr := h.exec(helm, "package", c, "-d", theirs); herr == nil {
				t.Errorf("package %s: we fail where Helm succeeds: %v", c, err)
			}
			continue
		}
		helmRun(t, h, helm, "package", c, "-d", theirs)
		a, b := archiveFiles(t, ours), archiveFiles(t, theirs)
		if len(a) != len(b) {
			t.Errorf("%s: %d files, Helm's archive has %d", c, len(a), len(b))
		}
		for name, data := range b {
			if got, ok := a[name]; !ok {
				t.Errorf("%s: %s missing from our archive", c, name)
			} else if got != data {
				t.Errorf("%s: %s differs from Helm's", c, name)
			}
		}
		compared++
	}
	t.Logf("%d of %d corpus charts packaged identically", compared, len(charts))
}

// archiveFiles reads the only .tgz in dir into a map of entry name to content.
func archiveFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		t.Fatalf("%s: want one archive, found %v", dir, matches)
	}
	f, err := os.Open(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[hd.Name] = string(b)
	}
}
