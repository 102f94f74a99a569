package cluster

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestServingCertificateChainsToTheCA(t *testing.T) {
	keys, err := writePKI(t.TempDir(), net.IPv4(10, 96, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(readFile(t, keys.CACert)) {
		t.Fatal("ca.crt holds no certificate")
	}
	block, _ := pem.Decode(readFile(t, keys.ServingCert))
	if block == nil {
		t.Fatal("apiserver.crt holds no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "localhost", "kubernetes.default.svc", "10.96.0.1"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("verify for %s: %v", name, err)
		}
	}
	for _, f := range []string{keys.ServingKey, keys.SAKey, keys.SAPub} {
		if block, _ := pem.Decode(readFile(t, f)); block == nil {
			t.Errorf("%s holds no PEM block", filepath.Base(f))
		}
	}
}

func TestCredentialsGiveEachComponentItsOwnToken(t *testing.T) {
	dir := t.TempDir()
	keys, err := writePKI(filepath.Join(dir, "pki"), net.IPv4(10, 96, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := writeCredentials(dir, "https://127.0.0.1:6443", keys)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(readFile(t, creds.tokenFile))), "\n")
	if len(lines) != 4 {
		t.Fatalf("token file has %d lines, want 4:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if want := creds.admin + `,kubectl-chart-admin,kubectl-chart-admin,"system:masters"`; lines[0] != want {
		t.Errorf("admin line = %q, want %q", lines[0], want)
	}
	tokens := map[string]bool{}
	for _, path := range []string{filepath.Join(dir, "kubeconfig"), creds.controllerManager, creds.scheduler, creds.kwokConf} {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		if cfg.Host != "https://127.0.0.1:6443" || len(cfg.CAData) == 0 || cfg.BearerToken == "" {
			t.Errorf("%s: host %q, %d bytes of CA, token %q", filepath.Base(path), cfg.Host, len(cfg.CAData), cfg.BearerToken)
		}
		tokens[cfg.BearerToken] = true
	}
	if len(tokens) != 4 {
		t.Errorf("%d distinct tokens, want 4", len(tokens))
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
