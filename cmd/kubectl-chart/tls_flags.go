package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// checkTLSFiles reads --ca-file, --cert-file and --key-file as Helm does
// before it downloads anything (it makes its registry client first, for
// every command with these flags), and refuses them in dialect d's Helm's
// words. Helm reads them only when a client certificate pair, a CA file or
// --insecure-skip-tls-verify is given.
func (f *chartRefFlags) checkTLSFiles(d dialect.Dialect) error {
	if !(f.certFile != "" && f.keyFile != "" || f.caFile != "" || f.insecureSkipTLSVerify) {
		return nil
	}
	var err error
	if d.IsHelm4() {
		err = helm4TLSFiles(f.certFile, f.keyFile, f.caFile)
	} else {
		err = helm3TLSFiles(f.certFile, f.keyFile, f.caFile)
	}
	if err != nil {
		return &registryClientError{fmt.Errorf("can't create TLS config for client: %w", err)}
	}
	return nil
}

// registryClientError is a download setting Helm refuses while it makes its
// registry client, before the command itself runs: install's error has no
// "INSTALLATION FAILED" then.
type registryClientError struct{ err error }

func (e *registryClientError) Error() string { return "missing registry client: " + e.err.Error() }
func (e *registryClientError) Unwrap() error { return e.err }

// helm3TLSFiles checks the files in Helm 3.22's order and words.
func helm3TLSFiles(certFile, keyFile, caFile string) error {
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

// helm4TLSFiles checks the files in Helm 4.3.1's order and words: the
// unreadable files all at once, then the pair, then the CA bundle.
func helm4TLSFiles(certFile, keyFile, caFile string) error {
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
