package main

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// hubResponse is an Artifact Hub search answer: one package with a package
// URL, one without (its URL is the endpoint's) and a long description, one
// with wide text and a description of two lines.
const hubResponse = `{"data":[
{"id":"stable/nginx","artifactHub":{"packageUrl":"https://artifacthub.io/packages/helm/bitnami/nginx"},"attributes":{"name":"nginx","description":"NGINX Open Source is a web server","repo":{"name":"bitnami","url":"https://charts.bitnami.com/bitnami"}},"relationships":{"latestChartVersion":{"data":{"version":"15.1.0","app_version":"1.25.1"}}}},
{"id":"other/nginx-lite","attributes":{"name":"nginx-lite","description":"A much longer description that goes on and on past the fifty characters of a column","repo":{"name":"other","url":"https://other.example/charts"}},"relationships":{"latestChartVersion":{"data":{"version":"0.1.0","app_version":""}}}},
{"id":"other/wide","artifactHub":{"packageUrl":"https://artifacthub.io/packages/helm/other/wide"},"attributes":{"name":"wide","description":"日本語の説明\nand a second line","repo":{"name":"other","url":"https://other.example/charts"}},"relationships":{"latestChartVersion":{"data":{"version":"1.0.0","app_version":"ça-va"}}}}
]}`

// search hub asks the endpoint's search API and prints what Helm prints
// (compared with Helm's own output when the peers are built).
func TestSearchHub(t *testing.T) {
	peers := map[string]string{"helm4": prereq.HelmPeer(t, "v4.3.1"), "helm3": prereq.HelmPeer(t, "v3.22.0")}
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chartsvc/v1/charts/search" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		queries = append(queries, r.URL.Query().Get("q"))
		mu.Unlock()
		if r.URL.Query().Get("q") == "nothing" {
			_, _ = w.Write([]byte(`{"data":[]}`))
			return
		}
		_, _ = w.Write([]byte(hubResponse))
	}))
	defer srv.Close()
	isolatePlugins(t)
	tests := map[string][]string{
		"table":          {"nginx", "web"},
		"repo urls":      {"nginx", "--list-repo-url", "--max-col-width", "30"},
		"no width limit": {"nginx", "--max-col-width", "0"},
		"json":           {"nginx", "-o", "json"},
		"yaml":           {"nginx", "-o", "yaml"},
		"no results":     {"nothing"},
		"none, as json":  {"nothing", "-o", "json"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			argv := append([]string{"search", "hub", "--endpoint", srv.URL}, args...)
			out, _, err := runRoot(t, argv...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "artifacthub.io/pack") && !strings.Contains(out, "No results found") && !strings.Contains(out, "[]") {
				t.Errorf("output:\n%s", out)
			}
			for d, peer := range peers {
				want, err := exec.Command(peer, argv...).Output()
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				if out != string(want) {
					t.Errorf("differs from %s:\n--- ours\n%s\n--- helm\n%s", d, out, want)
				}
			}
		})
	}
	mu.Lock()
	if len(queries) == 0 || queries[0] == "" {
		t.Errorf("queries: %q", queries)
	}
	mu.Unlock()
	if _, _, err := runRoot(t, "search", "hub", "--endpoint", srv.URL, "nothing", "--fail-on-no-result"); err == nil || err.Error() != "no results found" {
		t.Errorf("--fail-on-no-result: %v", err)
	}
}
