package kube

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// fault is what the fake API server does to one request.
type fault int

const (
	pass fault = iota
	// resetBefore cuts the connection before acting on the request.
	resetBefore
	// resetAfter acts on the request, then cuts the connection: the answer is lost.
	resetAfter
	// cutBody acts, then sends the headers and half of the answer.
	cutBody
	// status500Before answers 500 (etcd's leader change) without acting.
	status500Before
	// status503After acts, then answers 503.
	status503After
	// status429 answers 429 with Retry-After: 1 without acting.
	status429
)

// fakeAPI is a small API server over objects kept as JSON: create (POST to a
// collection, 409 AlreadyExists), get, update (PUT, 409 Conflict on a stale
// resourceVersion), delete, patch (apply and JSON patch as replacement of the
// whole object, good enough here). faults are consumed one per request.
type fakeAPI struct {
	t  *testing.T
	mu sync.Mutex
	// objects by path of the object.
	objects map[string]map[string]any
	rv      int
	faults  []fault
	// nextFault, when set, picks the fault of each request (after faults).
	nextFault func(r *http.Request) fault
	requests  []string // "METHOD PATH"
	acted     map[string]int
	srv       *httptest.Server
}

func newFakeAPI(t *testing.T, faults ...fault) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, objects: map[string]map[string]any{}, faults: faults, acted: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: f}}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) config() *rest.Config {
	return &rest.Config{Host: f.srv.URL, QPS: -1}
}

func (f *fakeAPI) take(r *http.Request) fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	if len(f.faults) > 0 {
		x := f.faults[0]
		f.faults = f.faults[1:]
		return x
	}
	if f.nextFault != nil {
		return f.nextFault(r)
	}
	return pass
}

// inject queues faults for the next requests.
func (f *fakeAPI) inject(faults ...fault) {
	f.mu.Lock()
	f.faults = append(f.faults, faults...)
	f.mu.Unlock()
}

// faultWith picks the faults of requests once the queue is empty.
func (f *fakeAPI) faultWith(next func(*http.Request) fault) {
	f.mu.Lock()
	f.nextFault = next
	f.mu.Unlock()
}

// actedOn counts the requests of a method that were carried out.
func (f *fakeAPI) actedOn(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.acted[method]
}

// stored is a copy of the objects.
func (f *fakeAPI) stored() map[string]map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]map[string]any{}
	for k, v := range f.objects {
		out[k] = v
	}
	return out
}

func (f *fakeAPI) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, method+" ") {
			n++
		}
	}
	return n
}

func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // RST rather than FIN
	}
	_ = conn.Close()
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	flt := f.take(r)
	switch flt {
	case resetBefore:
		reset(w)
		return
	case status500Before:
		writeStatus(w, http.StatusInternalServerError, "InternalError", "etcdserver: leader changed")
		return
	case status429:
		w.Header().Set("Retry-After", "1")
		writeStatus(w, http.StatusTooManyRequests, "TooManyRequests", "too many requests")
		return
	}
	code, body := f.act(r)
	switch flt {
	case resetAfter:
		reset(w)
		return
	case status503After:
		writeStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "unavailable")
		return
	case cutBody:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(code)
		_, _ = w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		reset(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": msg, "code": code})
}

func statusBody(code int, reason metav1.StatusReason, msg string) []byte {
	data, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Reason: reason, Message: msg, Code: int32(code)})
	return data
}

// act carries the request out and returns the answer.
func (f *fakeAPI) act(r *http.Request) (int, []byte) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.acted[r.Method]++
	var obj map[string]any
	if len(body) > 0 {
		if strings.Contains(r.Header.Get("Content-Type"), "protobuf") {
			o, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
			if err != nil {
				return 400, statusBody(400, metav1.StatusReasonBadRequest, err.Error())
			}
			u, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
			data, _ := json.Marshal(u)
			_ = json.Unmarshal(data, &obj)
		} else if err := json.Unmarshal(body, &obj); err != nil && r.Header.Get("Content-Type") != "application/json-patch+json" {
			return 400, statusBody(400, metav1.StatusReasonBadRequest, err.Error())
		}
	}
	path := r.URL.Path
	switch r.Method {
	case http.MethodPost:
		md, _ := obj["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		if name == "" {
			gen, _ := md["generateName"].(string)
			name = gen + strconv.Itoa(len(f.objects))
			md["name"] = name
		}
		path += "/" + name
		if _, ok := f.objects[path]; ok {
			return 409, statusBody(409, metav1.StatusReasonAlreadyExists, fmt.Sprintf("%q already exists", name))
		}
		f.rv++
		md["resourceVersion"] = strconv.Itoa(f.rv)
		md["uid"] = "uid-" + name
		md["creationTimestamp"] = "2026-01-02T03:04:05Z"
		f.objects[path] = obj
		data, _ := json.Marshal(obj)
		return 201, data
	case http.MethodGet:
		o, ok := f.objects[path]
		if !ok {
			return 404, statusBody(404, metav1.StatusReasonNotFound, "not found")
		}
		data, _ := json.Marshal(o)
		return 200, data
	case http.MethodPut:
		old, ok := f.objects[path]
		if !ok {
			return 404, statusBody(404, metav1.StatusReasonNotFound, "not found")
		}
		md, _ := obj["metadata"].(map[string]any)
		if rv, _ := md["resourceVersion"].(string); rv != "" && rv != old["metadata"].(map[string]any)["resourceVersion"] {
			return 409, statusBody(409, metav1.StatusReasonConflict, "the object has been modified")
		}
		f.rv++
		md["resourceVersion"] = strconv.Itoa(f.rv)
		md["uid"] = old["metadata"].(map[string]any)["uid"]
		md["creationTimestamp"] = old["metadata"].(map[string]any)["creationTimestamp"]
		f.objects[path] = obj
		data, _ := json.Marshal(obj)
		return 200, data
	case http.MethodDelete:
		if _, ok := f.objects[path]; !ok {
			return 404, statusBody(404, metav1.StatusReasonNotFound, "not found")
		}
		delete(f.objects, path)
		return 200, []byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	case http.MethodPatch:
		old, ok := f.objects[path]
		if !ok && r.Header.Get("Content-Type") != "application/apply-patch+yaml" {
			return 404, statusBody(404, metav1.StatusReasonNotFound, "not found")
		}
		if r.Header.Get("Content-Type") == "application/json-patch+json" {
			var ops []map[string]any
			_ = json.Unmarshal(body, &ops)
			for _, op := range ops {
				if op["path"] == "/metadata/resourceVersion" && op["value"] != old["metadata"].(map[string]any)["resourceVersion"] {
					return 409, statusBody(409, metav1.StatusReasonConflict, "the object has been modified")
				}
			}
			f.rv++
			old["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(f.rv)
			data, _ := json.Marshal(old)
			return 200, data
		}
		f.rv++
		md, _ := obj["metadata"].(map[string]any)
		md["resourceVersion"] = strconv.Itoa(f.rv)
		f.objects[path] = obj
		data, _ := json.Marshal(obj)
		return 200, data
	}
	return 405, statusBody(405, metav1.StatusReasonMethodNotAllowed, "method not allowed")
}

// fastRetries keep the tests quick.
var fastRetries = RetryOptions{MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Budget: 5 * time.Second}

func typedClient(t *testing.T, cfg *rest.Config, protobuf bool) kubernetes.Interface {
	t.Helper()
	cfg = WithRetries(cfg, fastRetries)
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func record(name, data string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"owner": "helm", "status": "pending-upgrade"}},
		Type:       "helm.sh/release.v1",
		Data:       map[string][]byte{"release": []byte(data)},
	}
}

// Reads are repeated after every kind of transient failure.
func TestRetryReads(t *testing.T) {
	for _, flt := range []fault{resetBefore, resetAfter, cutBody, status500Before, status503After} {
		t.Run(strconv.Itoa(int(flt)), func(t *testing.T) {
			api := newFakeAPI(t)
			c := typedClient(t, api.config(), false)
			if _, err := c.CoreV1().Secrets("ns").Create(context.Background(), record("a", "x"), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			api.inject(flt, flt)
			s, err := c.CoreV1().Secrets("ns").Get(context.Background(), "a", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if string(s.Data["release"]) != "x" {
				t.Errorf("got %v", s.Data)
			}
			if n := api.count("GET"); n != 3 {
				t.Errorf("%d GETs, want 3", n)
			}
		})
	}
}

// A create whose answer was lost is recognised as ours when repeated: one
// object, no error, in JSON and in protobuf.
func TestRetryCreateRecognisesItsOwnWrite(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		for _, flt := range []fault{resetAfter, cutBody, status503After} {
			t.Run(fmt.Sprintf("protobuf=%v/%d", protobuf, flt), func(t *testing.T) {
				api := newFakeAPI(t, flt)
				c := typedClient(t, api.config(), protobuf)
				got, err := c.CoreV1().Secrets("ns").Create(context.Background(), record("sh.helm.release.v1.web.v2", "payload"), metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				if got.Name != "sh.helm.release.v1.web.v2" || string(got.Data["release"]) != "payload" || got.ResourceVersion == "" {
					t.Errorf("created = %+v", got)
				}
				if api.actedOn("POST") != 2 || len(api.stored()) != 1 {
					t.Errorf("POSTs acted on = %d, objects = %d", api.actedOn("POST"), len(api.stored()))
				}
			})
		}
	}
}

// An object of the same name holding something else is not ours: the
// refusal stands.
func TestRetryCreateOfAnotherWriterIsRefused(t *testing.T) {
	api := newFakeAPI(t, resetBefore)
	c := typedClient(t, api.config(), true)
	// Someone else's revision 2 exists before our first attempt lands.
	api.mu.Lock()
	api.objects["/api/v1/namespaces/ns/secrets/sh.helm.release.v1.web.v2"] = map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
		"metadata": map[string]any{"name": "sh.helm.release.v1.web.v2", "namespace": "ns", "resourceVersion": "7"},
		"data":     map[string]any{"release": "b3RoZXI="},
	}
	api.mu.Unlock()
	api.inject(resetAfter)
	_, err := c.CoreV1().Secrets("ns").Create(context.Background(), record("sh.helm.release.v1.web.v2", "ours"), metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create over another writer's object: %v", err)
	}
}

// An update whose answer was lost is recognised as ours; one overtaken by
// another writer is refused as a conflict.
func TestRetryUpdate(t *testing.T) {
	api := newFakeAPI(t)
	c := typedClient(t, api.config(), true)
	ctx := context.Background()
	s, err := c.CoreV1().Secrets("ns").Create(ctx, record("r", "v1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data["release"] = []byte("v2")
	s.Labels["status"] = "deployed"
	api.inject(resetAfter)
	got, err := c.CoreV1().Secrets("ns").Update(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if string(got.Data["release"]) != "v2" || got.Labels["status"] != "deployed" || got.ResourceVersion == s.ResourceVersion {
		t.Errorf("updated = %+v", got)
	}

	// Another writer updates between our lost answer and our repeat.
	stale := got.DeepCopy()
	stale.Data["release"] = []byte("v3")
	api.faultWith(func(r *http.Request) fault {
		if r.Method == http.MethodPut {
			api.nextFault = nil
			o := api.objects["/api/v1/namespaces/ns/secrets/r"]
			o["data"] = map[string]any{"release": "b3RoZXI="}
			api.rv++
			o["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(api.rv)
			return resetBefore
		}
		return pass
	})
	if _, err := c.CoreV1().Secrets("ns").Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("update overtaken by another writer: %v", err)
	}
}

// A Lease created or renewed through lost answers is the holder's own.
func TestRetryLease(t *testing.T) {
	api := newFakeAPI(t, resetAfter)
	c := typedClient(t, api.config(), false)
	ctx := context.Background()
	id, secs := "me@host/1", int32(3)
	now := metav1.NewMicroTime(time.Now())
	l, err := c.CoordinationV1().Leases("ns").Create(ctx, &coordv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "kubectl-chart.release.web"},
		Spec:       coordv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create lease: %v", err)
	}
	later := metav1.NewMicroTime(time.Now().Add(time.Second))
	l.Spec.RenewTime = &later
	api.inject(status503After)
	if _, err := c.CoordinationV1().Leases("ns").Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("renew lease: %v", err)
	}
}

// Server-side apply, guarded JSON patches and deletions are repeated; a
// deletion whose answer was lost succeeds.
func TestRetryIdempotentWrites(t *testing.T) {
	api := newFakeAPI(t)
	dyn, err := dynamic.NewForConfig(WithRetries(api.config(), fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": map[string]any{"k": "v"}}}
	api.inject(resetAfter, status503After)
	live, err := cms.Apply(ctx, "c", cm, metav1.ApplyOptions{FieldManager: ports.DefaultFieldManager})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	api.inject(resetBefore)
	patch := fmt.Sprintf(`[{"op":"replace","path":"/metadata/resourceVersion","value":%q}]`, live.GetResourceVersion())
	if _, err := cms.Patch(ctx, "c", types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("guarded JSON patch: %v", err)
	}
	api.inject(resetAfter)
	if err := cms.Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if left := api.stored(); len(left) != 0 {
		t.Errorf("objects left: %v", left)
	}
}

// Writes that cannot be recognised afterwards are repeated only when the
// server did not act: an unguarded JSON patch or a POST without a name is
// not repeated after a lost answer, but is after a 429.
func TestRetryNonIdempotentWrites(t *testing.T) {
	api := newFakeAPI(t)
	dyn, err := dynamic.NewForConfig(WithRetries(api.config(), fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
	gen := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"generateName": "g-"}}}
	api.inject(resetAfter)
	if _, err := cms.Create(ctx, gen, metav1.CreateOptions{}); err == nil {
		t.Error("a POST without a name whose answer was lost was repeated")
	}
	if n := api.actedOn("POST"); n != 1 {
		t.Errorf("POSTs acted on = %d, want 1", n)
	}
	// A reset, even one that came before the server acted, reads the same as
	// a lost answer; a 429 is known not to have been acted on.
	api.inject(status429)
	if _, err := cms.Create(ctx, gen, metav1.CreateOptions{}); err != nil {
		t.Errorf("a POST without a name refused with 429: %v", err)
	}
	if n := api.actedOn("POST"); n != 2 {
		t.Errorf("POSTs acted on = %d, want 2", n)
	}
	api.inject(status503After)
	if _, err := cms.Patch(ctx, "g-0", types.JSONPatchType, []byte(`[{"op":"add","path":"/data","value":{}}]`), metav1.PatchOptions{}); err == nil {
		t.Error("an unguarded JSON patch answered 503 after acting was repeated")
	}
}

// A server that keeps failing is given up on after a bounded number of
// answers, with its last answer; a cancelled context stops at once.
func TestRetryGivesUp(t *testing.T) {
	api := newFakeAPI(t)
	api.faultWith(func(*http.Request) fault { return status500Before })
	c := typedClient(t, api.config(), false)
	_, err := c.CoreV1().Secrets("ns").Get(context.Background(), "a", metav1.GetOptions{})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "leader changed") {
		t.Errorf("err = %v", err)
	}
	if n := api.count("GET"); n != maxStatusAttempts {
		t.Errorf("%d GETs, want %d", n, maxStatusAttempts)
	}

	// The context is cancelled as the first retry is announced: no attempt
	// follows (but one already under way), where the budget allows hundreds.
	api.faultWith(func(*http.Request) fault { return resetBefore })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := fastRetries
	opts.OnRetry = func(RetryEvent) { cancel() }
	c, err = kubernetes.NewForConfig(WithRetries(api.config(), opts))
	if err != nil {
		t.Fatal(err)
	}
	before := api.count("GET")
	_, err = c.CoreV1().Secrets("ns").Get(ctx, "a", metav1.GetOptions{})
	if n := api.count("GET") - before; err == nil || n > 2 {
		t.Errorf("err = %v after %d GETs, want an error after 1", err, n)
	}
}

// An address where nothing ever answered fails fast; once the server has
// answered, its restart is waited for.
func TestRetryRefusedConnections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	// waited sums the waits retries announce. down is set while the server
	// is away; the first retry then announced closes refused, and the server
	// comes back.
	var waited atomic.Int64
	var down atomic.Bool
	refused := make(chan struct{})
	var once sync.Once
	opts := RetryOptions{Budget: 30 * time.Second, OnRetry: func(e RetryEvent) {
		waited.Add(int64(e.Wait))
		if down.Load() {
			once.Do(func() { close(refused) })
		}
	}}
	cfg := &rest.Config{Host: "http://" + addr, QPS: -1}
	c, err := kubernetes.NewForConfig(WithRetries(cfg, opts))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CoreV1().Secrets("ns").Get(context.Background(), "a", metav1.GetOptions{})
	if w := time.Duration(waited.Load()); err == nil || !strings.Contains(err.Error(), "connection refused") || w > unreachedBudget {
		t.Fatalf("unreachable server: %v after waits of %s, want at most %s of the %s budget", err, w, unreachedBudget, opts.Budget)
	}

	// The server answers, goes away until a request is refused, and comes
	// back on its port.
	api := &fakeAPI{t: t, objects: map[string]map[string]any{}, acted: map[string]int{}}
	serve := func() *http.Server {
		var l net.Listener
		for range 50 {
			if l, err = net.Listen("tcp", addr); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		s := &http.Server{Handler: api}
		go func() { _ = s.Serve(l) }()
		return s
	}
	s := serve()
	if _, err := c.CoreV1().Secrets("ns").Create(context.Background(), record("a", "x"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	_ = s.Close()
	back := make(chan *http.Server, 1)
	go func() {
		<-refused
		back <- serve()
	}()
	if _, err := c.CoreV1().Secrets("ns").Get(context.Background(), "a", metav1.GetOptions{}); err != nil {
		t.Fatalf("get across a restart: %v", err)
	}
	_ = (<-back).Close()
}

// Certificate errors are not transient.
func TestRetryNotOnCertificateErrors(t *testing.T) {
	var handshakes atomic.Int32
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			handshakes.Add(1)
		}
	}
	srv.Config.ErrorLog = nil
	srv.TLS = &tls.Config{}
	srv.StartTLS()
	defer srv.Close()
	c, err := kubernetes.NewForConfig(WithRetries(&rest.Config{Host: srv.URL, QPS: -1}, fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CoreV1().Secrets("ns").Get(context.Background(), "a", metav1.GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v", err)
	}
	if n := handshakes.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// A watch is opened again after a failure, and its stream is handed over
// as it arrives, not read ahead.
func TestRetryWatchStreams(t *testing.T) {
	var opened atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opened.Add(1) == 1 {
			reset(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `{"type":"ADDED","object":{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a","namespace":"ns","resourceVersion":"1"}}}`+"\n")
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	c, err := kubernetes.NewForConfig(WithRetries(&rest.Config{Host: srv.URL, QPS: -1}, fastRetries))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := c.CoreV1().Secrets("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if s, ok := ev.Object.(*corev1.Secret); !ok || s.Name != "a" {
			t.Errorf("event %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no event: the stream was read ahead")
	}
}

// Random faults on a fifth of the requests: every create, update and delete
// of 100 records converges, each written once.
func TestRetryRandomFaults(t *testing.T) {
	api := newFakeAPI(t)
	rng := rand.New(rand.NewPCG(15, 15))
	var mu sync.Mutex
	all := []fault{resetBefore, resetAfter, cutBody, status500Before, status503After, status429}
	api.faultWith(func(*http.Request) fault {
		mu.Lock()
		defer mu.Unlock()
		if rng.IntN(5) == 0 {
			return all[rng.IntN(len(all))]
		}
		return pass
	})
	c := typedClient(t, api.config(), true)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			name := "sh.helm.release.v1.r.v" + strconv.Itoa(i)
			s, err := c.CoreV1().Secrets("ns").Create(ctx, record(name, "pending"), metav1.CreateOptions{})
			if err != nil {
				errs <- fmt.Errorf("create %s: %w", name, err)
				return
			}
			s.Data["release"] = []byte("deployed")
			if _, err := c.CoreV1().Secrets("ns").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
				errs <- fmt.Errorf("update %s: %w", name, err)
				return
			}
			if i%2 == 0 {
				if err := c.CoreV1().Secrets("ns").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					errs <- fmt.Errorf("delete %s: %w", name, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	objects := api.stored()
	if len(objects) != 50 {
		t.Errorf("%d objects, want 50", len(objects))
	}
	for path, o := range objects {
		if o["data"].(map[string]any)["release"] != "ZGVwbG95ZWQ=" {
			t.Errorf("%s holds %v", path, o["data"])
		}
	}
}

func TestWithRetriesWrapsOnce(t *testing.T) {
	cfg := WithRetries(WithRetries(&rest.Config{Host: "http://127.0.0.1:1"}, fastRetries), fastRetries)
	rt := cfg.WrapTransport(http.DefaultTransport)
	inner, ok := rt.(*retryTransport)
	if !ok {
		t.Fatalf("outer transport is %T", rt)
	}
	if _, nested := inner.next.(*retryTransport); nested {
		t.Error("retrying transport wrapped twice")
	}
}

func TestClassifyError(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		err  error
		want failure
	}{
		{&net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}, notActed},
		{&net.OpError{Op: "read", Err: errors.New("read: connection reset by peer")}, mayHaveActed},
		{io.ErrUnexpectedEOF, mayHaveActed},
		{errors.New("http2: client connection lost"), mayHaveActed},
		{&net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, permanent},
		{context.Canceled, permanent},
		{errors.New("something else"), permanent},
	} {
		if got, _ := classifyError(ctx, c.err); got != c.want {
			t.Errorf("classifyError(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		method, url, ct, body string
		want                  kind
	}{
		{"GET", "/api/v1/namespaces/ns/secrets", "", "", idempotent},
		{"DELETE", "/api/v1/namespaces/ns/secrets/a", "", "", idempotent},
		{"PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", "application/apply-patch+yaml", "{}", idempotent},
		{"PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", "application/json-patch+json", `[{"op":"add","path":"/x","value":1}]`, other},
		{"POST", "/api/v1/namespaces/ns/secrets", "application/json", `{"metadata":{"name":"a"}}`, create},
		{"POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"a"}}`, create},
		{"POST", "/api/v1/namespaces/ns/secrets", "application/json", `{"metadata":{"generateName":"a-"}}`, other},
		{"POST", "/api/v1/namespaces/ns/pods/p/eviction", "application/json", `{"metadata":{"name":"p"}}`, other},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json", `{}`, idempotent},
		{"POST", "/api/v1/namespaces/ns/secrets?dryRun=All", "application/json", `{}`, idempotent},
		{"PUT", "/api/v1/namespaces/ns/secrets/a", "application/json", `{}`, update},
	} {
		req := httptest.NewRequest(c.method, c.url, strings.NewReader(c.body))
		req.Header.Set("Content-Type", c.ct)
		if got := kindOf(req, []byte(c.body)); got != c.want {
			t.Errorf("%s %s: kind %d, want %d", c.method, c.url, got, c.want)
		}
	}
}

// A stream the server reset proves it is there: the request is retried within
// the whole budget, not the short one of an address nothing answers at (the
// chaos suite's lost answers to a command's first request, its lock).
func TestRetryStreamResetCountsAsReached(t *testing.T) {
	next := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("stream error: stream ID 9; INTERNAL_ERROR; received from peer")
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rt *retryTransport
	var reached atomic.Bool
	rt = NewRetryTransport(next, RetryOptions{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, OnRetry: func(RetryEvent) {
		reached.Store(rt.state.reached.Load())
		cancel()
	}}).(*retryTransport)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:1/api/v1/namespaces/ns/secrets/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.RoundTrip(req); err == nil {
		t.Fatal("want the stream error")
	}
	if !reached.Load() {
		t.Errorf("a stream reset by the server did not count as reaching it")
	}
}

// roundTripFunc is a RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
