// Package tlsfiles reads a client's TLS files (CA bundle, certificate and
// key) as Helm does before it connects, and refuses unusable ones in the
// words of the Helm release a dialect follows.
package tlsfiles

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Used reports whether Helm reads the files at all: with a certificate and
// a key, a CA file, or certificate checks turned off.
func Used(certFile, keyFile, caFile string, insecure bool) bool {
	return certFile != "" && keyFile != "" || caFile != "" || insecure
}

// Check reads the files as dialect d's Helm does (Helm 4's rules unless d
// is Helm 3) and refuses them as it does: "can't create TLS config for
// client: ...". Callers check Used first.
func Check(d dialect.Dialect, certFile, keyFile, caFile string) error {
	var err error
	if d == dialect.Helm3 {
		err = helm3(certFile, keyFile, caFile)
	} else {
		err = helm4(certFile, keyFile, caFile)
	}
	if err != nil {
		return fmt.Errorf("can't create TLS config for client: %w", err)
	}
	return nil
}

// helm3 checks the files in Helm 3.22's order and words.
func helm3(certFile, keyFile, caFile string) error {
	if certFile != "" && keyFile != "" {
		if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
			return fmt.Errorf("can't load key pair from cert %s and key %s: %w", certFile, keyFile, err)
		}
	}
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return fmt.Errorf("can't read CA file: %v", caFile)
		}
		if !x509.NewCertPool().AppendCertsFromPEM(b) {
			return fmt.Errorf("failed to append certificates from file: %s", caFile)
		}
	}
	return nil
}

// helm4 checks the files in Helm 4.3.1's order and words: the unreadable
// files all at once, then the pair, then the CA bundle.
func helm4(certFile, keyFile, caFile string) error {
	var errs []error
	var certPEM, keyPEM, caPEM []byte
	if certFile != "" || keyFile != "" {
		var err error
		if certPEM, err = os.ReadFile(certFile); err != nil {
			errs = append(errs, fmt.Errorf("unable to read cert file: %q: %w", certFile, err))
		} else if keyPEM, err = os.ReadFile(keyFile); err != nil {
			errs = append(errs, fmt.Errorf("unable to read key file: %q: %w", keyFile, err))
		}
	}
	if caFile != "" {
		var err error
		if caPEM, err = os.ReadFile(caFile); err != nil {
			errs = append(errs, fmt.Errorf("can't read CA file: %q: %w", caFile, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if len(certPEM) > 0 && len(keyPEM) > 0 {
		if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
			return fmt.Errorf("unable to load cert from key pair: %w", err)
		}
	}
	if len(caPEM) > 0 && !x509.NewCertPool().AppendCertsFromPEM(caPEM) {
		return errors.New("failed to append certificates from pem block")
	}
	return nil
}
