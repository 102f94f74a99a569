package oci

import (
	"crypto/tls"
	"errors"
	"net/http"
	"sync/atomic"
)

// httpFallback is Helm 3's transport for registries: a registry that answers
// the TLS handshake with plain HTTP is spoken to in plain HTTP from then on
// (Helm 3 keeps ORAS v1's fallback; Helm 4 dropped it and needs --plain-http).
type httpFallback struct {
	base   http.RoundTripper
	forced atomic.Bool
}

func (t *httpFallback) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.forced.Load() && req.URL.Scheme == "https" {
		return t.base.RoundTrip(withScheme(req, "http"))
	}
	resp, err := t.base.RoundTrip(req)
	var rec tls.RecordHeaderError
	if err != nil && req.URL.Scheme == "https" && errors.As(err, &rec) && string(rec.RecordHeader[:]) == "HTTP/" {
		t.forced.Store(true)
		return t.base.RoundTrip(withScheme(req, "http"))
	}
	return resp, err
}

// withScheme is req for another scheme (a RoundTripper must not change its request).
func withScheme(req *http.Request, scheme string) *http.Request {
	r := req.Clone(req.Context())
	u := *req.URL
	u.Scheme = scheme
	r.URL = &u
	return r
}
