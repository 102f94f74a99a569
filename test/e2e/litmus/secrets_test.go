//go:build e2e

package litmus

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// helmSecrets lays out helm-secrets' Helm 4 plugins (kept in testdata) and
// the sops and age they run, built from the module proxy (hack/helm-secrets.sh),
// and returns that directory.
func helmSecrets(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(prereq.ModuleRoot(), "hack", "helm-secrets.sh"))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/helm-secrets.sh: %v\n%s", err, errOut.String())
	}
	return strings.TrimSpace(string(out))
}

// helm-secrets' Helm 4 plugins (getter, post-renderer, command; shell scripts
// running sops with an age key) installed unchanged into each program decrypt
// `-f secrets://values.enc.yaml` as under Helm v4.3.1.
func TestHelmSecrets(t *testing.T) {
	helm := helmPeer(t, "v4.3.1")
	hs := helmSecrets(t)
	s := newSession(t)
	for i, kv := range s.env {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			s.env[i] = "PATH=" + filepath.Join(hs, "bin") + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		case strings.HasPrefix(kv, "HELM_PLUGINS="):
			// Helm 4.3.1's `plugin install` writes to $HELM_DATA_HOME/plugins whatever
			// $HELM_PLUGINS says, and then reads $HELM_PLUGINS.
			s.env[i] = "HELM_PLUGINS=" + filepath.Join(s.dir, "helm-data", "plugins")
		}
	}
	key := filepath.Join(s.dir, "age.key")
	s.run(filepath.Join(hs, "bin", "age-keygen"), "-o", key)
	s.env = append(s.env, "SOPS_AGE_KEY_FILE="+key)
	recipient := strings.TrimSpace(s.run(filepath.Join(hs, "bin", "age-keygen"), "-y", key))
	chart := filepath.Join(s.dir, "chart")
	files := map[string]string{
		"chart/Chart.yaml":            "apiVersion: v2\nname: secrets-demo\nversion: 0.1.0\n",
		"chart/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}\nstringData:\n  password: {{ .Values.password | quote }}\n  user: {{ .Values.user | quote }}\n",
		"values.yaml":                 "password: s3cr3t\nuser: admin\n",
		".sops.yaml":                  "creation_rules:\n  - age: " + recipient + "\n",
	}
	for name, data := range files {
		p := filepath.Join(s.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	enc := s.run(filepath.Join(hs, "bin", "sops"), "--encrypt", "--input-type", "yaml", "--output-type", "yaml", "values.yaml")
	if err := os.WriteFile(filepath.Join(s.dir, "values.enc.yaml"), []byte(enc), 0o644); err != nil {
		t.Fatal(err)
	}
	plugins, err := filepath.Glob(filepath.Join(hs, "plugins", "*"))
	if err != nil || len(plugins) != 3 {
		t.Fatalf("helm-secrets plugins: %v %v", plugins, err)
	}
	for _, p := range plugins {
		s.run(bin, "plugin", "install", p)
		s.run(helm, "plugin", "install", p)
	}
	for name, args := range map[string][]string{
		"getter":  {"template", "r1", chart, "-f", "secrets://values.enc.yaml"},
		"command": {"secrets", "decrypt", "values.enc.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			ours, theirs := s.exec(bin, args...), s.exec(helm, args...)
			if ours != theirs {
				t.Errorf("exit %d, Helm %d\n--- ours\n%s\n--- helm\n%s", ours.code, theirs.code, ours.out, theirs.out)
			}
		})
	}
	if out := s.run(bin, "template", "r1", chart, "-f", "secrets://values.enc.yaml"); !strings.Contains(out, `password: "s3cr3t"`) {
		t.Errorf("not decrypted:\n%s", out)
	}
	// A failing subprocess getter: Helm 4 passes its stderr through, then quotes its
	// plugin value; here the stderr is part of the error (known difference).
	args := []string{"template", "r1", chart, "-f", "secrets://missing.yaml"}
	ours, theirs := s.exec(bin, args...), s.exec(helm, args...)
	const why = "[helm-secrets] File does not exist: missing.yaml"
	if ours.code != theirs.code || !strings.Contains(ours.out, why) || !strings.Contains(theirs.out, why) {
		t.Errorf("missing file: exit %d, Helm %d\n--- ours\n%s\n--- helm\n%s", ours.code, theirs.code, ours.out, theirs.out)
	}
}
