package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is what the control plane needs to trust itself: a CA, the API
// server's serving certificate and the service-account signing key.
type pki struct {
	CACert, ServingCert, ServingKey string
	SAKey, SAPub                    string
	caPEM                           []byte
}

// writePKI generates fresh keys in dir. ECDSA P-256 keys take a millisecond,
// where RSA would cost a noticeable part of the start-up time.
func writePKI(dir string, serviceIP net.IP) (pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return pki{}, err
	}
	p := pki{
		CACert:      filepath.Join(dir, "ca.crt"),
		ServingCert: filepath.Join(dir, "apiserver.crt"),
		ServingKey:  filepath.Join(dir, "apiserver.key"),
		SAKey:       filepath.Join(dir, "sa.key"),
		SAPub:       filepath.Join(dir, "sa.pub"),
	}
	now := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pki{}, fmt.Errorf("generate ca key: %w", err)
	}
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "kubectl-chart-test-ca"},
		NotBefore:             now,
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return pki{}, fmt.Errorf("sign ca certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return pki{}, fmt.Errorf("parse ca certificate: %w", err)
	}
	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pki{}, fmt.Errorf("generate serving key: %w", err)
	}
	servingTmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:   now,
		NotAfter:    now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default",
			"kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, serviceIP},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, ca, &servingKey.PublicKey, caKey)
	if err != nil {
		return pki{}, fmt.Errorf("sign serving certificate: %w", err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pki{}, fmt.Errorf("generate service-account key: %w", err)
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	files := []struct {
		path string
		data func() ([]byte, error)
	}{
		{p.CACert, func() ([]byte, error) { return p.caPEM, nil }},
		{p.ServingCert, func() ([]byte, error) {
			return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER}), nil
		}},
		{p.ServingKey, func() ([]byte, error) { return keyPEM(servingKey) }},
		{p.SAKey, func() ([]byte, error) { return keyPEM(saKey) }},
		{p.SAPub, func() ([]byte, error) {
			der, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
			return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), err
		}},
	}
	for _, f := range files {
		data, err := f.data()
		if err != nil {
			return pki{}, fmt.Errorf("encode %s: %w", filepath.Base(f.path), err)
		}
		if err := os.WriteFile(f.path, data, 0o600); err != nil {
			return pki{}, err
		}
	}
	return p, nil
}

func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// randomToken returns a secret for a static bearer token.
func randomToken() string {
	return rand.Text()
}
