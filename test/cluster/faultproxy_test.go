package cluster

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func TestFaultProxy(t *testing.T) {
	var served atomic.Int32
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"},"data":{"k":"v"}}`))
	}))
	defer upstream.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: upstream.Certificate().Raw})
	up := &rest.Config{Host: upstream.URL, BearerToken: "secret", TLSClientConfig: rest.TLSClientConfig{CAData: ca}}

	start := func(t *testing.T, opts FaultProxyOptions) (*FaultProxy, kubernetes.Interface) {
		t.Helper()
		p, err := StartFaultProxy(up, t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		if !strings.HasPrefix(p.URL, "https://127.0.0.1:") {
			t.Errorf("proxy URL %s", p.URL)
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		c, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return p, c
	}
	get := func(c kubernetes.Interface) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.CoreV1().ConfigMaps("default").Get(ctx, "x", metav1.GetOptions{})
		return err
	}

	t.Run("passes requests on", func(t *testing.T) {
		p, c := start(t, FaultProxyOptions{Rate: 0, Latency: 1, MaxLatency: 10 * time.Millisecond})
		for range 5 {
			if err := get(c); err != nil {
				t.Fatal(err)
			}
		}
		if s := p.Stats(); s["requests"] != 5 || s["latency"] != 5 {
			t.Errorf("stats %v", s)
		}
	})
	t.Run("500", func(t *testing.T) {
		_, c := start(t, FaultProxyOptions{Rate: 1, Faults: []Fault{Fault500}})
		if err := get(c); !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "leader changed") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("lost answer", func(t *testing.T) {
		p, c := start(t, FaultProxyOptions{Rate: 1, Faults: []Fault{FaultLostAnswer}})
		before := served.Load()
		if err := get(c); err == nil {
			t.Error("a lost answer arrived")
		}
		if served.Load() == before {
			t.Error("the request never reached the server")
		}
		p.Enable(false)
		if err := get(c); err != nil {
			t.Errorf("with faults off: %v", err)
		}
	})
	t.Run("match", func(t *testing.T) {
		p, c := start(t, FaultProxyOptions{Rate: 1, Faults: []Fault{Fault500}, Match: func(r *http.Request) bool { return r.Method == http.MethodPost }})
		if err := get(c); err != nil {
			t.Errorf("a request the proxy does not match failed: %v", err)
		}
		if s := p.Stats(); s["500"] != 0 {
			t.Errorf("stats %v", s)
		}
	})
	t.Run("reset", func(t *testing.T) {
		p, c := start(t, FaultProxyOptions{Rate: 1, Faults: []Fault{FaultReset, FaultAbort}})
		before := served.Load()
		for range 3 {
			if err := get(c); err == nil {
				t.Error("a reset request succeeded")
			}
		}
		if served.Load() != before {
			t.Error("a reset request reached the server")
		}
		if s := p.Stats(); s["reset"]+s["abort"] < 3 || s["reset GET configmaps"]+s["abort GET configmaps"] < 3 {
			t.Errorf("stats %v", s)
		}
	})
}

func TestResourceOf(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/ns/secrets":                           "secrets",
		"/api/v1/namespaces/ns/secrets/sh.helm.release.v1.web.v1": "secrets",
		"/api/v1/namespaces/ns":                                   "namespaces",
		"/api/v1/namespaces":                                      "namespaces",
		"/api/v1/namespaces/ns/pods/p/log":                        "pods/log",
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases/l":     "leases",
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":  "selfsubjectaccessreviews",
		"/apis/apps/v1/namespaces/ns/deployments/d/status":        "deployments/status",
		"/version": "/version",
	} {
		if got := resourceOf(path); got != want {
			t.Errorf("resourceOf(%s) = %q, want %q", path, got, want)
		}
	}
}
