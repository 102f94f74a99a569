package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Fault is what a FaultProxy does to a request instead of passing it on.
type Fault string

// Faults a FaultProxy injects. The "before" faults never reach the API
// server; FaultLostAnswer does, and its answer is thrown away, as when a
// connection breaks after the server acted.
const (
	// Fault500 answers 500 with etcd's leader-change message.
	Fault500 Fault = "500"
	// Fault503 answers 503, as an API server shutting down or overloaded.
	Fault503 Fault = "503"
	// Fault429 answers 429 (priority and fairness), half of them with Retry-After: 1.
	Fault429 Fault = "429"
	// FaultReset resets the TCP connection the request came on, with every
	// other request and watch on it.
	FaultReset Fault = "reset"
	// FaultAbort aborts the request's stream (HTTP/2 RST_STREAM).
	FaultAbort Fault = "abort"
	// FaultLostAnswer passes the request on, then aborts its stream: the
	// server acted, the client never hears.
	FaultLostAnswer Fault = "lost-answer"
)

// AllFaults are the faults a FaultProxy injects by default.
var AllFaults = []Fault{Fault500, Fault503, Fault429, FaultReset, FaultAbort, FaultLostAnswer}

// FaultProxyOptions configures StartFaultProxy.
type FaultProxyOptions struct {
	// Seed makes the choice of faults repeatable (for a given order of
	// requests).
	Seed uint64
	// Rate is the fraction of requests that meet a fault (0.1: one in ten).
	Rate float64
	// Faults are the faults to choose from; AllFaults when empty.
	Faults []Fault
	// Latency is the fraction of the other requests delayed, each by up to
	// MaxLatency (uniformly).
	Latency    float64
	MaxLatency time.Duration
	// Match, when set, picks the requests faults and delays apply to; the
	// others pass untouched.
	Match func(*http.Request) bool
}

// FaultProxy is a TLS-terminating reverse proxy on 127.0.0.1 between clients
// and an API server that injects seeded random faults and latency. Clients
// reach it through Kubeconfig, which trusts its own certificate and carries
// the upstream credentials; watches and logs stream through it.
type FaultProxy struct {
	// URL is the proxy's address, https://127.0.0.1:PORT.
	URL string
	// Kubeconfig is a kubeconfig for the proxy with the upstream's user.
	Kubeconfig string

	srv      *http.Server
	proxy    *httputil.ReverseProxy
	upstream http.RoundTripper
	target   *url.URL

	mu      sync.Mutex
	rng     *mrand.Rand
	opts    FaultProxyOptions
	stats   map[string]int
	enabled atomic.Bool
}

type connKey struct{}

// StartFaultProxy starts a proxy in front of the API server of upstream and
// writes its kubeconfig into dir. Faults are injected from the start;
// Enable(false) passes every request on untouched.
func StartFaultProxy(upstream *rest.Config, dir string, opts FaultProxyOptions) (*FaultProxy, error) {
	if len(opts.Faults) == 0 {
		opts.Faults = AllFaults
	}
	target, err := url.Parse(upstream.Host)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: upstream %q: %w", upstream.Host, err)
	}
	rt, err := rest.TransportFor(upstream)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: upstream transport: %w", err)
	}
	certPEM, keyPEM, err := selfSigned()
	if err != nil {
		return nil, fmt.Errorf("fault proxy: certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: certificate: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: listen: %w", err)
	}
	p := &FaultProxy{
		URL:      "https://" + l.Addr().String(),
		upstream: rt,
		target:   target,
		rng:      mrand.New(mrand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		opts:     opts,
		stats:    map[string]int{},
	}
	p.enabled.Store(true)
	p.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{
		Handler:   p,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12},
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		ErrorLog:          log.New(io.Discard, "", 0),
		ReadHeaderTimeout: 30 * time.Second,
	}
	p.Kubeconfig = filepath.Join(dir, "fault-proxy.kubeconfig")
	if err := writeProxyKubeconfig(p.Kubeconfig, p.URL, certPEM, upstream); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	go func() { _ = p.srv.ServeTLS(l, "", "") }()
	return p, nil
}

// Enable turns fault injection on or off.
func (p *FaultProxy) Enable(on bool) { p.enabled.Store(on) }

// Close stops the proxy and cuts its connections.
func (p *FaultProxy) Close() error { return p.srv.Close() }

// Stats counts the requests ("requests"), each fault injected (by kind,
// and by kind, method and resource: "lost-answer POST secrets"), and the
// delayed requests ("latency").
func (p *FaultProxy) Stats() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.stats))
	for k, v := range p.stats {
		out[k] = v
	}
	return out
}

// resourceOf is the resource a request path names (secrets,
// selfsubjectaccessreviews, ...), or the path of a non-resource request.
func resourceOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		rest = segs[3:]
	default:
		return path
	}
	if len(rest) >= 2 && rest[0] == "namespaces" && len(rest) != 2 {
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return path
	}
	if len(rest) >= 3 {
		return rest[0] + "/" + rest[2]
	}
	return rest[0]
}

// StatsString is Stats on one line, the kinds only.
func (p *FaultProxy) StatsString() string {
	stats := p.Stats()
	keys := make([]string, 0, len(stats))
	for k := range stats {
		if !strings.Contains(k, " ") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, stats[k]))
	}
	return strings.Join(parts, " ")
}

// DetailString is Stats on one line, by kind, method and resource.
func (p *FaultProxy) DetailString() string {
	stats := p.Stats()
	keys := make([]string, 0, len(stats))
	for k := range stats {
		if strings.Contains(k, " ") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, stats[k]))
	}
	return strings.Join(parts, " ")
}

// streamingRequest is a watch, a followed log or an upgrade: its answer
// does not end, so it is never passed on to be lost.
func streamingRequest(r *http.Request) bool {
	q := r.URL.Query()
	return q.Get("watch") == "true" || q.Get("watch") == "1" || q.Get("follow") == "true" ||
		strings.HasSuffix(r.URL.Path, "/log") || r.Header.Get("Upgrade") != ""
}

// pick chooses what happens to a request: a fault, a delay, or nothing.
func (p *FaultProxy) pick(r *http.Request) (Fault, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats["requests"]++
	if !p.enabled.Load() || p.opts.Match != nil && !p.opts.Match(r) {
		return "", 0
	}
	if p.rng.Float64() < p.opts.Rate {
		f := p.opts.Faults[p.rng.IntN(len(p.opts.Faults))]
		if f == FaultLostAnswer && streamingRequest(r) {
			f = FaultAbort
		}
		p.stats[string(f)]++
		p.stats[fmt.Sprintf("%s %s %s", f, r.Method, resourceOf(r.URL.Path))]++
		return f, 0
	}
	if p.opts.MaxLatency > 0 && p.rng.Float64() < p.opts.Latency {
		p.stats["latency"]++
		return "", time.Duration(p.rng.Int64N(int64(p.opts.MaxLatency)))
	}
	return "", 0
}

func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, delay := p.pick(r)
	switch f {
	case Fault500:
		proxyStatus(w, http.StatusInternalServerError, "InternalError", "etcdserver: leader changed")
		return
	case Fault503:
		proxyStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the server is currently unable to handle the request")
		return
	case Fault429:
		if p.coin() {
			w.Header().Set("Retry-After", "1")
		}
		proxyStatus(w, http.StatusTooManyRequests, "TooManyRequests", "too many requests, please try again later")
		return
	case FaultReset:
		resetConn(r)
		panic(http.ErrAbortHandler)
	case FaultAbort:
		panic(http.ErrAbortHandler)
	case FaultLostAnswer:
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = p.target.Scheme, p.target.Host, p.target.Host, ""
		if resp, err := p.upstream.RoundTrip(out); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		panic(http.ErrAbortHandler)
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	p.proxy.ServeHTTP(w, r)
}

func (p *FaultProxy) coin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.IntN(2) == 0
}

// resetConn resets the TCP connection a request came on (RST, not FIN).
func resetConn(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
		_ = tcp.Close()
	}
}

func proxyStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "reason": reason, "message": msg, "code": code,
	})
}

// selfSigned makes a certificate for 127.0.0.1 that is its own CA.
func selfSigned() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now().Add(-time.Hour)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "kubectl-chart-fault-proxy"},
		NotBefore:             now,
		NotAfter:              now.Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// writeProxyKubeconfig writes a kubeconfig for the proxy with upstream's user.
func writeProxyKubeconfig(path, server string, ca []byte, upstream *rest.Config) error {
	const name = "fault-proxy"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{
		Token: upstream.BearerToken, TokenFile: upstream.BearerTokenFile,
		ClientCertificateData: upstream.CertData, ClientKeyData: upstream.KeyData,
		ClientCertificate: upstream.CertFile, ClientKey: upstream.KeyFile,
		Username: upstream.Username, Password: upstream.Password,
	}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	return clientcmd.WriteToFile(*cfg, path)
}
