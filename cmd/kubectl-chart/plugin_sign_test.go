package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// testKeyrings writes a secret and a public keyring for a fresh key.
func testKeyrings(t *testing.T, name string) (secret, public string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", nil)
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
	dir := t.TempDir()
	secret, public = filepath.Join(dir, "secring.gpg"), filepath.Join(dir, "pubring.gpg")
	writeFiles(t, dir, map[string]string{"secring.gpg": s.String(), "pubring.gpg": p.String()})
	return secret, public
}

// plugin package signs, plugin verify and plugin install check the signature.
func TestPluginPackageVerifyInstall(t *testing.T) {
	isolatePlugins(t)
	secret, public := testKeyrings(t, "Alice")
	_, otherPublic := testKeyrings(t, "Mallory")
	dst := t.TempDir()
	src := filepath.Join("testdata", "plugins", "envprint")
	out, _, err := runRoot(t, "plugin", "package", src, "--key", "Alice", "--keyring", secret, "-d", dst)
	tgz := filepath.Join(dst, "envprint-0.1.0.tgz")
	if err != nil || out != "Successfully signed. Signature written to: "+tgz+".prov\nSuccessfully packaged plugin and saved it to: "+tgz+"\n" {
		t.Fatalf("package: %q, %v", out, err)
	}
	out, _, err = runRoot(t, "plugin", "verify", tgz, "--keyring", public)
	if err != nil || !strings.Contains(out, "Signed by: Alice (test) <Alice@example.com>\n") || !strings.Contains(out, "Plugin Hash Verified: sha256:") {
		t.Fatalf("verify: %q, %v", out, err)
	}
	if _, _, err := runRoot(t, "plugin", "verify", tgz, "--keyring", otherPublic); err == nil {
		t.Error("verify with another key: no error")
	}

	unsigned := t.TempDir()
	if out, _, err := runRoot(t, "plugin", "package", src, "--sign=false", "-d", unsigned); err != nil || !strings.HasPrefix(out, "WARNING: Skipping plugin signing.") {
		t.Fatalf("package --sign=false: %q, %v", out, err)
	}
	tampered := filepath.Join(t.TempDir(), "envprint-0.1.0.tgz")
	b, err := os.ReadFile(filepath.Join(unsigned, "envprint-0.1.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := os.ReadFile(tgz + ".prov")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Dir(tampered), map[string]string{"envprint-0.1.0.tgz": string(b) + "x", "envprint-0.1.0.tgz.prov": string(prov)})

	tests := map[string]struct {
		args    []string
		want    string
		wantErr string
	}{
		"no prov":       {args: []string{filepath.Join(unsigned, "envprint-0.1.0.tgz")}, wantErr: "plugin verification failed: no provenance file (.prov) found"},
		"tampered":      {args: []string{tampered}, wantErr: "plugin verification failed: "},
		"other key":     {args: []string{tgz, "--keyring", otherPublic}, wantErr: "plugin verification failed: "},
		"helm3 no prov": {args: []string{filepath.Join(unsigned, "envprint-0.1.0.tgz"), "--compat", "helm3"}, want: "Installed plugin: envprint\n"},
		"skipped":       {args: []string{filepath.Join(unsigned, "envprint-0.1.0.tgz"), "--verify=false"}, want: "WARNING: Skipping plugin signature verification\nInstalled plugin: envprint\n"},
		"signed":        {args: []string{tgz, "--keyring", public}, want: "Verifying plugin signature...\nSigned by: Alice (test) <Alice@example.com>\nUsing Key With Fingerprint: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, append([]string{"plugin", "install"}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.HasPrefix(out, tc.want) {
				t.Fatalf("install: %q, %v; want %q", out, err, tc.want)
			}
			if _, _, err := runRoot(t, "plugin", "uninstall", "envprint"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPluginListType(t *testing.T) {
	isolatePlugins(t)
	installTestPlugin(t, "envprint")
	tests := map[string]struct {
		kind         string
		want, absent string
	}{
		"cli":          {kind: "cli/v1", want: "envprint", absent: "kustomize"},
		"postrenderer": {kind: "postrenderer/v1", want: "kustomize", absent: "envprint"},
		"all":          {want: "envprint"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, "plugin", "list", "--type", tc.kind)
			if err != nil || !strings.Contains(out, tc.want) || (tc.absent != "" && strings.Contains(out, tc.absent)) {
				t.Errorf("plugin list --type %q: %q, %v", tc.kind, out, err)
			}
		})
	}
}

// A plugin packaged and signed by Helm v4.3.1 (testdata/plugins/helm4-signed,
// see generate.sh there) verifies and installs.
func TestPluginSignedByHelm(t *testing.T) {
	isolatePlugins(t)
	dir := filepath.Join("testdata", "plugins", "helm4-signed")
	tgz, keyring := filepath.Join(dir, "envprint-0.1.0.tgz"), filepath.Join(dir, "pubring.gpg")
	if out, _, err := runRoot(t, "plugin", "verify", tgz, "--keyring", keyring); err != nil || !strings.Contains(out, "Signed by: Helm Fixture <fixture@example.com>\n") {
		t.Errorf("verify: %q, %v", out, err)
	}
	if out, _, err := runRoot(t, "plugin", "install", tgz, "--keyring", keyring); err != nil || !strings.HasSuffix(out, "Installed plugin: envprint\n") {
		t.Errorf("install: %q, %v", out, err)
	}
}
