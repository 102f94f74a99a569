package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gobwas/glob"
)

// httpDoer sends a plugin's HTTP requests.
type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// httpRequest is extism's http_request: a JSON request description and an
// optional body, to a host in allowedHosts only; the response body, at most
// maxHttpResponseBytes, is returned as a block.
func (s *session) httpRequest(ctx context.Context, reqOff, bodyOff uint64) uint64 {
	clear(s.lastHeaders)
	s.lastStatus = 0
	raw := s.k.block(reqOff)
	s.k.release(reqOff)
	var req struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Method  string            `json:"method"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		panic(fmt.Errorf("invalid http request: %v", err))
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		panic(fmt.Errorf("invalid url: %v", err))
	}
	if !hostAllowed(s.manifest.AllowedHosts, u.Hostname()) {
		panic(fmt.Errorf("HTTP request to '%v' is not allowed", req.URL))
	}
	var body io.Reader
	if bodyOff != 0 {
		body = bytes.NewReader(s.k.block(bodyOff))
		s.k.release(bodyOff)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		panic(err)
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	resp, err := s.http.Do(hreq)
	if err != nil {
		panic(err)
	}
	defer func() { _ = resp.Body.Close() }()
	for k, v := range resp.Header {
		s.lastHeaders[strings.ToLower(k)] = strings.Join(v, ",")
	}
	s.lastStatus = int32(resp.StatusCode)
	b, err := io.ReadAll(http.MaxBytesReader(nil, resp.Body, s.manifest.MaxHTTPResponseBytes))
	if err != nil {
		panic(err)
	}
	if len(b) == 0 {
		return 0
	}
	return s.mustWrite(b, "response body")
}

func (s *session) httpHeaders() uint64 {
	b, err := json.Marshal(s.lastHeaders)
	if err != nil {
		panic(err)
	}
	return s.mustWrite(b, "response headers")
}

// hostAllowed matches host against the allowed names and glob patterns ('*',
// '?', '[...]', '{a,b}'), none listed allows none: extism's matching, with its
// glob package. A malformed pattern panics there, inside the host function,
// which wazero recovers into the call's error, as in extism.
func hostAllowed(allowed []string, host string) bool {
	for _, a := range allowed {
		if a == host || glob.MustCompile(a).Match(host) {
			return true
		}
	}
	return false
}
