package main

import (
	"github.com/kubectl-chart/kubectl-chart/adapters/tlsfiles"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// checkTLSFiles reads --ca-file, --cert-file and --key-file as Helm does
// before it downloads anything (it makes its registry client first, for
// every command with these flags), and refuses them in dialect d's Helm's
// words.
func (f *chartRefFlags) checkTLSFiles(d dialect.Dialect) error {
	if !tlsfiles.Used(f.certFile, f.keyFile, f.caFile, f.insecureSkipTLSVerify) {
		return nil
	}
	if err := tlsfiles.Check(d, f.certFile, f.keyFile, f.caFile); err != nil {
		return &registryClientError{err}
	}
	return nil
}

// registryClientError is a download setting Helm refuses while it makes its
// registry client, before the command itself runs: install's error has no
// "INSTALLATION FAILED" then.
type registryClientError struct{ err error }

func (e *registryClientError) Error() string { return "missing registry client: " + e.err.Error() }
func (e *registryClientError) Unwrap() error { return e.err }
