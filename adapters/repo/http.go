// Package repo talks to HTTP chart repositories and keeps the local repository
// configuration (repositories.yaml) and index cache.
package repo

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/tlsfiles"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// MaxDownloadSize caps any single download (index or chart archive).
const MaxDownloadSize = domrepo.DefaultMaxIndexSize

// ErrTooLarge is returned when a download exceeds its limit.
var ErrTooLarge = errors.New("download too large")

// Getter fetches URLs with a repository's TLS settings and credentials. Credentials go
// only to the repository's own scheme and host (also across redirects) unless
// PassCredentialsAll is set.
type Getter struct {
	client *http.Client
}

// NewGetter builds a Getter for a repository entry; e may be nil for
// anonymous access. Unusable TLS files are refused as dialect d's Helm
// refuses them (Helm 4's words for the zero dialect).
func NewGetter(e *domrepo.Entry, d dialect.Dialect) (*Getter, error) {
	if e == nil {
		e = &domrepo.Entry{}
	}
	if tlsfiles.Used(e.CertFile, e.KeyFile, e.CAFile, e.InsecureSkipTLSverify) {
		if err := tlsfiles.Check(d, e.CertFile, e.KeyFile, e.CAFile); err != nil {
			return nil, err
		}
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: e.InsecureSkipTLSverify} //nolint:gosec // the user asked for it
	if e.CAFile != "" {
		pem, err := os.ReadFile(e.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", e.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	// As in Helm, a certificate without its key (or a key alone) is not
	// used: tlsfiles.Check has refused it where Helm does.
	if e.CertFile != "" && e.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(e.CertFile, e.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tlsCfg
	base.Proxy = http.ProxyFromEnvironment
	var rt http.RoundTripper = base
	if e.Username != "" || e.Password != "" {
		u, err := url.Parse(e.URL)
		if err != nil {
			return nil, fmt.Errorf("invalid repository URL %q: %w", e.URL, err)
		}
		rt = &authTransport{base: base, scheme: u.Scheme, host: u.Host, user: e.Username, pass: e.Password, all: e.PassCredentialsAll}
	}
	return &Getter{client: &http.Client{Transport: rt, Timeout: DefaultTimeout}}, nil
}

// authTransport adds basic auth per request, so every hop of a redirect is checked
// on its own: a request to another scheme or host goes without credentials.
type authTransport struct {
	base         http.RoundTripper
	scheme, host string
	user, pass   string
	all          bool
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if t.all || (req.URL.Scheme == t.scheme && req.URL.Host == t.host) {
		req.SetBasicAuth(t.user, t.pass)
	} else {
		req.Header.Del("Authorization")
	}
	return t.base.RoundTrip(req)
}

// Get downloads u, refusing more than limit bytes.
func (g *Getter) Get(ctx context.Context, u string, limit int64) ([]byte, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", u, err)
	}
	if pu.Scheme != "http" && pu.Scheme != "https" {
		return nil, fmt.Errorf("could not find protocol handler for: %s", pu.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "kubectl-chart")
	resp, err := g.client.Do(req)
	if err != nil {
		// The client's error names the method and URL (password redacted),
		// as in Helm.
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to fetch %s : %s", redact(u), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", redact(u), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("get %s: %w (more than %d bytes)", redact(u), ErrTooLarge, limit)
	}
	return data, nil
}

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}

// IndexURL is where a repository serves its index.
func IndexURL(repoURL string) string {
	u, err := url.Parse(repoURL)
	if err != nil {
		return strings.TrimSuffix(repoURL, "/") + "/index.yaml"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/index.yaml"
	return u.String()
}
