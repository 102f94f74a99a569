package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Transient API failures — throttling (429), server errors (5xx, among them
// etcd's "leader changed"), connections refused, reset or cut short, an API
// server restarting — are retried with backoff by a transport under every
// client built from a REST config passed through WithRetries. A request is
// retried within its context and within a budget of its own.
//
// What is retried depends on whether a repeat can change more than the first
// attempt did:
//
//   - Requests the server never acted on (the connection was refused, 429) are
//     repeated whatever their method.
//   - Reads, deletions, server-side applies, merge patches, dry runs and
//     access reviews are idempotent and repeated after any transient failure.
//   - A create (POST of a named object to its collection) or an update (PUT)
//     whose answer was lost may have been carried out: it is repeated, and if
//     the repeat is refused because the object exists (create) or changed
//     (update), the object is read back; when it holds what the request wrote,
//     the write was ours and the request succeeds with it. Otherwise the
//     refusal stands. A release record written once is thus never reported
//     as a conflict with itself, and never written twice.
//   - Other writes (a POST without a name, JSON patches without a
//     resourceVersion guard) are repeated only when the server never acted.
const (
	// DefaultRetryBudget bounds the time one request spends retrying: longer
	// than an API server takes to restart, shorter than a lock lease (60s), so
	// that a renewal retrying is over before the lease it renews runs out.
	DefaultRetryBudget = 45 * time.Second
	// unreachedBudget bounds retries of connections refused before the API
	// server ever answered: a wrong address fails fast, a restart is waited for.
	unreachedBudget = 2 * time.Second
	// maxStatusAttempts bounds attempts answered by 5xx statuses, which a
	// broken webhook or server can give for good.
	maxStatusAttempts = 8
	// maxRetryAfter caps the wait a Retry-After header asks for.
	maxRetryAfter = 10 * time.Second
)

// takeOverBackoff paces the recomputations of a take-over patch that lost a
// race (takeOverUpdates): controllers write a workload's status in bursts
// (a Deployment scaling writes it several times a second), which the
// default 5 x 10ms outlasts only by luck.
var takeOverBackoff = wait.Backoff{Steps: 8, Duration: 20 * time.Millisecond, Factor: 2, Jitter: 0.2, Cap: time.Second}

// RetryOptions tunes the retrying transport; zero values take the defaults.
type RetryOptions struct {
	// Budget bounds the time one request spends retrying (DefaultRetryBudget).
	Budget time.Duration
	// MinBackoff and MaxBackoff bound the exponential, jittered waits between
	// attempts (100ms and 2s).
	MinBackoff, MaxBackoff time.Duration
	// OnRetry is told of every retry; may be nil.
	OnRetry func(RetryEvent)
}

// RetryEvent describes one retry.
type RetryEvent struct {
	Method, URL string
	// Attempt is the attempt that failed, from 1.
	Attempt int
	// Reason is the failure: an HTTP status or a connection error.
	Reason string
	Wait   time.Duration
}

func (o RetryOptions) withDefaults() RetryOptions {
	if o.Budget <= 0 {
		o.Budget = DefaultRetryBudget
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 2 * time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	return o
}

// WithRetries returns a copy of cfg whose clients retry transient failures.
// Wrapping a config twice retries once.
func WithRetries(cfg *rest.Config, opts RetryOptions) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	// One state for every client of the config: whether the API server has
	// been reached at all.
	shared := &retryState{opts: opts.withDefaults()}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		if _, ok := rt.(*retryTransport); ok {
			return rt
		}
		return &retryTransport{next: rt, state: shared}
	})
	return cfg
}

// NewRetryTransport retries transient failures of next.
func NewRetryTransport(next http.RoundTripper, opts RetryOptions) http.RoundTripper {
	return &retryTransport{next: next, state: &retryState{opts: opts.withDefaults()}}
}

type retryState struct {
	opts RetryOptions
	// reached is set once the API server answered anything.
	reached atomic.Bool
}

type retryTransport struct {
	next  http.RoundTripper
	state *retryState
}

// WrappedRoundTripper lets client-go's debugging wrappers see through.
func (t *retryTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

// failure is how a failed attempt may have left the server.
type failure int

const (
	noFailure failure = iota
	// notActed: the server did not act on the request.
	notActed
	// mayHaveActed: the request may have been carried out.
	mayHaveActed
	// permanent: not a transient failure.
	permanent
)

// kind is what a request is, for retrying.
type kind int

const (
	// other writes are repeated only when the server did not act.
	other kind = iota
	// idempotent requests are repeated after any transient failure.
	idempotent
	// create is a POST of a named object to its collection.
	create
	// update is a PUT of an object.
	update
)

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if isUpgrade(req) {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
	}
	k := kindOf(req, body)
	stream := streaming(req)
	opts := t.state.opts
	ctx := req.Context()
	start := time.Now()
	var (
		lastResp  *http.Response
		lastErr   error
		uncertain bool // an earlier attempt may have been carried out
		statusN   int
	)
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(attemptRequest(req, body))
		var f failure
		var reason string
		var retryAfter time.Duration
		switch {
		case err != nil:
			f, reason = classifyError(ctx, err)
			if answeredByPeer(err) {
				// A stream reset or GOAWAY comes from the server (or a
				// proxy before it): it is there, so its failures get the
				// whole budget, not the fast one of an address nothing
				// answers at.
				t.state.reached.Store(true)
			}
		default:
			t.state.reached.Store(true)
			f, reason, retryAfter = classifyStatus(resp)
			if f == noFailure && !stream {
				// The answer is read here, so that a connection cut while
				// it arrives is retried like any other failure.
				data, rerr := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if rerr != nil {
					if ctx.Err() != nil {
						return nil, rerr
					}
					err, resp = rerr, nil
					if f, reason = classifyError(ctx, rerr); f != permanent {
						f, reason = mayHaveActed, "answer cut short: "+reason
					}
				} else {
					resp.Body = io.NopCloser(bytes.NewReader(data))
					resp.ContentLength = int64(len(data))
				}
			}
		}
		if f == noFailure {
			if uncertain {
				return t.settle(req, body, k, resp)
			}
			return resp, nil
		}
		if f == permanent {
			return resp, err
		}
		if resp != nil {
			// Keep the failed answer to return it when giving up.
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(data))
			resp.ContentLength = int64(len(data))
			statusN++
		}
		lastResp, lastErr = resp, err
		if f == mayHaveActed {
			if k == other {
				return giveUp(lastResp, lastErr, attempt, start)
			}
			uncertain = true
		}
		budget := opts.Budget
		if !t.state.reached.Load() {
			budget = min(budget, unreachedBudget)
		}
		wait := backoff(opts, attempt)
		if retryAfter > wait {
			wait = min(retryAfter, maxRetryAfter)
		}
		if statusN >= maxStatusAttempts || time.Since(start)+wait > budget {
			return giveUp(lastResp, lastErr, attempt, start)
		}
		if opts.OnRetry != nil {
			opts.OnRetry(RetryEvent{Method: req.Method, URL: req.URL.String(), Attempt: attempt, Reason: reason, Wait: wait})
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return giveUp(lastResp, lastErr, attempt, start)
		case <-timer.C:
		}
	}
}

// answeredByPeer reports whether err is the other end's answer at the HTTP/2
// level (a stream it reset, a connection it closed with GOAWAY).
func answeredByPeer(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "received from peer") || strings.Contains(msg, "server sent GOAWAY")
}

// giveUp returns the last failure, saying how often it was tried.
func giveUp(resp *http.Response, err error, attempts int, start time.Time) (*http.Response, error) {
	if err != nil {
		if attempts > 1 {
			err = &exhaustedError{err: err, attempts: attempts, elapsed: time.Since(start)}
		}
		return nil, err
	}
	return resp, nil
}

// exhaustedError is the last failure of a request retried until its budget
// or context ran out.
type exhaustedError struct {
	err      error
	attempts int
	elapsed  time.Duration
}

func (e *exhaustedError) Error() string {
	return fmt.Sprintf("%v (tried %d times in %s)", e.err, e.attempts, e.elapsed.Round(time.Millisecond))
}

func (e *exhaustedError) Unwrap() error { return e.err }

func attemptRequest(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	return r
}

func backoff(o RetryOptions, attempt int) time.Duration {
	d := o.MinBackoff
	for i := 1; i < attempt && d < o.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, o.MaxBackoff)
	// Full jitter over the upper half: concurrent clients spread out.
	return d/2 + rand.N(d/2+1)
}

// classifyError tells a transient connection failure from a permanent one
// (certificates, a cancelled context, a malformed request) and whether the
// server may have acted. reason is empty for permanent failures.
func classifyError(ctx context.Context, err error) (failure, string) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return permanent, ""
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
		alert            tls.AlertError
	)
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verify) || errors.As(err, &alert) {
		return permanent, ""
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		// A TLS alert from the server: refused credentials or protocol.
		return permanent, ""
	}
	if errors.As(err, &op) && op.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED) {
		// Nothing was sent.
		return notActed, err.Error()
	}
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.As(err, &op),
		strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "broken pipe"),
		strings.Contains(msg, "use of closed network connection"),
		strings.Contains(msg, "server closed idle connection"),
		strings.Contains(msg, "can't write http request on broken connection"),
		strings.Contains(msg, "http2: client connection lost"),
		strings.Contains(msg, "http2: server sent goaway"),
		strings.Contains(msg, "http2: client connection force closed"),
		strings.Contains(msg, "stream error"),
		strings.Contains(msg, "unexpected eof"),
		strings.Contains(msg, "tls handshake timeout"),
		strings.Contains(msg, "timeout awaiting response headers"):
		return mayHaveActed, err.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return mayHaveActed, err.Error()
	}
	return permanent, ""
}

// classifyStatus reads a transient failure from an answer: 429 (not acted
// upon) or a server error (it may have acted), with the wait Retry-After asks.
func classifyStatus(resp *http.Response) (failure, string, time.Duration) {
	var after time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		after = time.Duration(s) * time.Second
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return notActed, resp.Status, after
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return mayHaveActed, resp.Status, after
	}
	return noFailure, "", 0
}

// isUpgrade is a request switching protocols (exec, attach, port-forward):
// passed through untouched.
func isUpgrade(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Connection"), "upgrade") || req.Header.Get("Upgrade") != ""
}

// streaming is a request whose answer is a stream (watches, logs, proxies):
// its opening is retried, its answer is not read ahead.
func streaming(req *http.Request) bool {
	q := req.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" || q.Get("follow") == "true" {
		return true
	}
	p := req.URL.Path
	return strings.HasSuffix(p, "/log") || strings.Contains(p, "/proxy")
}

// kindOf sorts a request for retrying.
func kindOf(req *http.Request, body []byte) kind {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodDelete:
		return idempotent
	}
	if dry := req.URL.Query()["dryRun"]; len(dry) > 0 && dry[0] != "" {
		return idempotent
	}
	ct := req.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	switch req.Method {
	case http.MethodPatch:
		switch strings.TrimSpace(ct) {
		case "application/apply-patch+yaml", "application/apply-patch+cbor",
			"application/merge-patch+json", "application/strategic-merge-patch+json":
			return idempotent
		case "application/json-patch+json":
			if guardedJSONPatch(body) {
				// A repeat after success fails its resourceVersion guard,
				// which callers take for a conflict and read again.
				return idempotent
			}
		}
		return other
	case http.MethodPut:
		return update
	case http.MethodPost:
		p := req.URL.Path
		if strings.HasPrefix(p, "/apis/authorization.k8s.io/") || strings.HasPrefix(p, "/apis/authentication.k8s.io/") {
			// Access and token reviews store nothing.
			return idempotent
		}
		if _, ok := collectionPath(p); ok && objectName(ct, body) != "" {
			return create
		}
	}
	return other
}

// guardedJSONPatch reports whether a JSON patch tests or replaces the
// object's resourceVersion.
func guardedJSONPatch(body []byte) bool {
	var ops []struct {
		Op   string `json:"op"`
		Path string `json:"path"`
	}
	if json.Unmarshal(body, &ops) != nil {
		return false
	}
	for _, o := range ops {
		if o.Path == "/metadata/resourceVersion" && (o.Op == "test" || o.Op == "replace") {
			return true
		}
	}
	return false
}

// collectionPath reports whether p is a resource collection
// (/api/v1/[namespaces/NS/]RESOURCE or /apis/G/V/[namespaces/NS/]RESOURCE).
func collectionPath(p string) (string, bool) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var rest []string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		rest = segs[3:]
	default:
		return "", false
	}
	if len(rest) == 1 || len(rest) == 3 && rest[0] == "namespaces" {
		return p, true
	}
	return "", false
}

// decodeBody reads a request body (JSON, YAML or protobuf) as a JSON object.
func decodeBody(contentType string, body []byte) map[string]any {
	var m map[string]any
	if strings.Contains(contentType, "protobuf") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
		if err != nil {
			return nil
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil
		}
		// Through JSON, so that numbers and times compare as a GET reads them.
		data, err := json.Marshal(u)
		if err != nil || json.Unmarshal(data, &m) != nil {
			return nil
		}
		return m
	}
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m
}

func objectName(contentType string, body []byte) string {
	m := decodeBody(contentType, body)
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}

// settle is the answer to a create or update repeated after an attempt that
// may have been carried out: a refusal because the object exists (create) or
// changed (update) is read back, and if the object holds what was written,
// the write was this request's and it succeeds with the object.
func (t *retryTransport) settle(req *http.Request, body []byte, k kind, resp *http.Response) (*http.Response, error) {
	if resp.StatusCode != http.StatusConflict || (k != create && k != update) {
		if k == idempotent && req.Method == http.MethodDelete && resp.StatusCode == http.StatusNotFound {
			// The first attempt deleted it.
			return synthesized(req, http.StatusOK, []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`)), nil
		}
		return resp, nil
	}
	ct := req.Header.Get("Content-Type")
	sent := decodeBody(ct, body)
	if sent == nil {
		return resp, nil
	}
	u := *req.URL
	u.RawQuery = ""
	if k == create {
		name := objectName(ct, body)
		u.Path = strings.TrimSuffix(u.Path, "/") + "/" + name
		u.RawPath = ""
	}
	get, err := http.NewRequestWithContext(req.Context(), http.MethodGet, u.String(), nil)
	if err != nil {
		return resp, nil
	}
	for key, vals := range req.Header {
		switch http.CanonicalHeaderKey(key) {
		case "Content-Type", "Content-Length", "Accept", "Content-Encoding":
			continue
		}
		get.Header[key] = vals
	}
	get.Header.Set("Accept", "application/json")
	// Read back with retries of its own: a GET is idempotent.
	live, err := t.RoundTrip(get)
	if err != nil {
		return resp, nil
	}
	data, err := io.ReadAll(live.Body)
	_ = live.Body.Close()
	if err != nil || live.StatusCode != http.StatusOK {
		return resp, nil
	}
	var stored map[string]any
	if json.Unmarshal(data, &stored) != nil || !holds(stored, written(sent, req.URL.Path)) {
		return resp, nil
	}
	status := http.StatusOK
	if k == create {
		status = http.StatusCreated
	}
	return synthesized(req, status, data), nil
}

func synthesized(req *http.Request, status int, body []byte) *http.Response {
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": []string{"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// written is what a create or update sets that the server keeps as sent:
// without the fields it sets itself, and without status unless the request
// wrote the status subresource.
func written(sent map[string]any, path string) map[string]any {
	out := map[string]any{}
	for k, v := range sent {
		out[k] = v
	}
	if !strings.HasSuffix(path, "/status") {
		delete(out, "status")
	}
	if md, ok := sent["metadata"].(map[string]any); ok {
		m := map[string]any{}
		for k, v := range md {
			switch k {
			case "resourceVersion", "managedFields", "generation", "creationTimestamp", "selfLink":
				continue
			}
			m[k] = v
		}
		out["metadata"] = m
	}
	return out
}

// holds reports whether stored has every value of want (absent and empty
// values of want match absent ones).
func holds(stored any, want any) bool {
	switch w := want.(type) {
	case nil:
		return true
	case map[string]any:
		s, _ := stored.(map[string]any)
		for k, v := range w {
			if empty(v) {
				if sv, ok := s[k]; ok && !empty(sv) {
					return false
				}
				continue
			}
			if !holds(s[k], v) {
				return false
			}
		}
		return true
	case []any:
		s, _ := stored.([]any)
		if len(s) != len(w) {
			return false
		}
		for i := range w {
			if !holds(s[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(stored, want)
	}
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case string:
		return x == ""
	}
	return false
}
