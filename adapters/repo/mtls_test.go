package repo_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// clientCert issues a client certificate from a fresh CA and writes cert and key files.
func clientCert(t *testing.T, dir string) (pool *x509.CertPool, certFile, keyFile string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return pool, certFile, keyFile
}

func TestClientCertificates(t *testing.T) {
	ctx := context.Background()
	dir := makeRepoDir(t, "")
	pool, certFile, keyFile := clientCert(t, t.TempDir())
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(dir)))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "server-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}

	g, err := repo.NewGetter(&domrepo.Entry{URL: srv.URL, CAFile: ca}, dialect.Default)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Get(ctx, srv.URL+"/index.yaml", 1<<20); err == nil {
		t.Error("no client certificate: want a TLS error")
	}
	m := newManager(t)
	e := &domrepo.Entry{Name: "mtls", URL: srv.URL, CAFile: ca, CertFile: certFile, KeyFile: keyFile}
	if err := m.Add(ctx, e, false); err != nil {
		t.Fatalf("add with a client certificate: %v", err)
	}
	if _, err := m.DownloadChart(ctx, "mtls", "demo", "", false); err != nil {
		t.Errorf("download with a client certificate: %v", err)
	}
}
