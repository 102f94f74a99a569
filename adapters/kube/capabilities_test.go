package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"
)

// .Capabilities.KubeVersion is the server's version as it gives it, as both
// Helms take it, whatever a distribution adds to it.
func TestCapabilitiesKeepTheServersVersion(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var body any
		switch r.URL.Path {
		case "/version":
			body = map[string]string{"gitVersion": "v1.30.4-eks-a737599", "major": "1", "minor": "30+"}
		case "/api":
			body = map[string]any{"kind": "APIVersions", "versions": []string{"v1"}}
		case "/apis":
			body = map[string]any{"kind": "APIGroupList", "groups": []any{}}
		case "/api/v1":
			body = map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
				map[string]any{"name": "configmaps", "namespaced": true, "kind": "ConfigMap", "verbs": []string{"get"}},
			}}
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	defer srv.Close()
	c, err := New(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Capabilities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kv := caps.KubeVersion
	if kv.Version != "v1.30.4-eks-a737599" || kv.Major != "1" || kv.Minor != "30+" {
		t.Errorf("KubeVersion = %q %q %q, want the server's", kv.Version, kv.Major, kv.Minor)
	}
	if !caps.APIVersions.Has("v1/ConfigMap") {
		t.Errorf("APIVersions = %v", caps.APIVersions)
	}
}
