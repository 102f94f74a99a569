package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// flakyAPI is an API server on 127.0.0.1 that answers each path's first
// request with 503 and the next ones as a small cluster would: discovery
// (v1 and apps/v1), its version, a ConfigMap web/cfg, a Deployment web/api and
// its pod, as objects or tables.
type flakyAPI struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	// hold, when set, keeps answers of paths it names back until the
	// request's context ends, and is told of each.
	hold func(path string) bool
	held chan string
}

func newFlakyAPI(t *testing.T) *flakyAPI {
	t.Helper()
	a := &flakyAPI{hits: map[string]int{}, held: make(chan string, 16)}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// kubeconfig writes a kubeconfig that leads to a, with namespace web.
func (a *flakyAPI) kubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: flaky, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: flaky, context: {cluster: flaky, user: u, namespace: web}}]
current-context: flaky
`, a.URL)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// hitsOf is how often path was asked for.
func (a *flakyAPI) hitsOf(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

func (a *flakyAPI) serve(w http.ResponseWriter, r *http.Request) {
	// Paths with their queries, but for the timeout discovery adds.
	key := r.URL.Path
	q := r.URL.Query()
	q.Del("timeout")
	if len(q) > 0 {
		key += "?" + q.Encode()
	}
	a.mu.Lock()
	a.hits[key]++
	first := a.hits[key] == 1
	hold := a.hold
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if first {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected","reason":"ServiceUnavailable","code":503}`)
		return
	}
	if hold != nil && hold(r.URL.Path) {
		a.held <- r.URL.Path
		<-r.Context().Done()
		return
	}
	table := strings.Contains(r.Header.Get("Accept"), "as=Table")
	body, ok := map[string]string{
		"/version": `{"major":"1","minor":"31","gitVersion":"v1.31.7"}`,
		"/api":     `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`,
		"/apis":    `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
		"/api/v1": `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]},` +
			`{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"]},` +
			`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list"]}]}`,
		"/apis/apps/v1": `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[` +
			`{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list"]}]}`,
		"/api/v1/namespaces/web/configmaps/cfg":        liveObject(table, "v1", "ConfigMap", "cfg"),
		"/apis/apps/v1/namespaces/web/deployments/api": liveObject(table, "apps/v1", "Deployment", "api"),
		"/api/v1/namespaces/web/pods":                  livePods(table),
		"/api/v1/namespaces":                           `{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"web"}},{"metadata":{"name":"default"}}]}`,
	}[r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"%s not found"}`, r.URL.Path)
		return
	}
	fmt.Fprint(w, body)
}

// liveObject is an object of namespace web, or its table.
func liveObject(table bool, apiVersion, kind, name string) string {
	if table {
		return tableOf(name)
	}
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"namespace":"web","resourceVersion":"7"}}`, apiVersion, kind, name)
}

func livePods(table bool) string {
	if table {
		return tableOf("api-1")
	}
	return `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"api-1","namespace":"web"}}]}`
}

func tableOf(name string) string {
	return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[` +
		`{"name":"Name","type":"string","format":"name","description":"","priority":0},` +
		`{"name":"Ready","type":"string","format":"","description":"","priority":0}],` +
		`"rows":[{"cells":["` + name + `","1/1"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"` + name + `"}}}]}`
}

// seedStatusRelease writes release web/web, whose manifest has the
// ConfigMap and the Deployment of flakyAPI, to a bbolt file.
func seedStatusRelease(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "releases.db")
	rel := &release.Release{Name: "web", Namespace: "web", Version: 1,
		Info: &release.Info{Status: release.StatusDeployed, Description: "Install complete"},
		Manifest: "---\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n" +
			"---\n# Source: web/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  selector:\n    matchLabels:\n      app: api\n"}
	if err := bbolt.New(path, 0).Create(context.Background(), rel); err != nil {
		t.Fatal(err)
	}
	return path
}

// Retries and the -v request log apply to every client of the program, also
// those of template --validate and status --show-resources: each request the
// API server first refuses with 503 is retried, logged, and the command's
// output is the one a healthy server gives.
func TestRetriesAndRequestLogEverywhere(t *testing.T) {
	chart := t.TempDir()
	writeFiles(t, chart, map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"templates/caps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  apps: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" | quote }}\n",
	})
	db := seedStatusRelease(t)
	tests := map[string]struct {
		args []string
		// want are lines of stdout; paths the requests that must have been
		// retried.
		want, paths []string
	}{
		"template --validate": {
			args:  []string{"template", "web", chart, "--validate"},
			want:  []string{`  kube: "v1.31.7"`, `  apps: "true"`},
			paths: []string{"/version", "/api", "/apis", "/api/v1", "/apis/apps/v1"},
		},
		"status --show-resources": {
			args:  []string{"status", "web", "--show-resources", "--compat", "helm3", "--storage", "bbolt", "--bbolt-path", db},
			want:  []string{"==> v1/ConfigMap\nNAME   READY\ncfg    1/1\n", "==> v1/Deployment\napi   1/1\n", "==> v1/Pod(related)\napi-1   1/1\n"},
			paths: []string{"/api/v1/namespaces/web/configmaps/cfg", "/apis/apps/v1/namespaces/web/deployments/api", "/api/v1/namespaces/web/pods?labelSelector=app%3Dapi"},
		},
		"status -o json": {
			args:  []string{"status", "web", "-o", "json", "--storage", "bbolt", "--bbolt-path", db},
			want:  []string{`"v1/Pod(related)":[{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"api-1","namespace":"web"}}],"kind":"PodList","metadata":{"resourceVersion":"9"}}]`},
			paths: []string{"/api/v1/namespaces/web/pods?labelSelector=app%3Dapi"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			api := newFlakyAPI(t)
			args := append([]string{"--kubeconfig", api.kubeconfig(t), "-v", "6"}, tc.args...)
			out, errOut, err := runRoot(t, args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, p := range tc.paths {
				if n := api.hitsOf(p); n < 2 {
					t.Errorf("%s asked for %d times, want a 503, then a retry", p, n)
				}
				if !logged(errOut, `msg="api request retried" method=GET`, api.URL+p, ` attempt=1 reason="503 Service Unavailable"`) {
					t.Errorf("stderr does not log the retry of %s:\n%s", p, errOut)
				}
				if !logged(errOut, `msg="api request" method=GET`, api.URL+p, " milliseconds=") {
					t.Errorf("stderr lacks the request log line of %s:\n%s", p, errOut)
				}
			}
		})
	}
}

// status stops reading the cluster when its context ends (Ctrl-C).
func TestStatusResourcesFollowContext(t *testing.T) {
	api := newFlakyAPI(t)
	api.hold = func(path string) bool { return strings.HasPrefix(path, "/api/v1/namespaces/") }
	db := seedStatusRelease(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-api.held
		cancel()
	}()
	var out strings.Builder
	root := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}, BuildInfo{}, nil)
	root.SetArgs([]string{"--kubeconfig", api.kubeconfig(t), "status", "web", "-o", "json", "--storage", "bbolt", "--bbolt-path", db})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Logf("status ended with %v", err)
	}
	if ctx.Err() == nil {
		t.Fatal("status ended before it read the held object")
	}
	var got struct {
		Info struct {
			Resources map[string][]any `json:"resources"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err == nil && len(got.Info.Resources["v1/ConfigMap"]) != 0 {
		t.Errorf("a held object was listed: %s", out.String())
	}
}

// logged reports whether a line of log has msg, then url (quoted or not,
// with client-go's ?timeout= or not), then rest.
func logged(log, msg, url, rest string) bool {
	for _, line := range strings.Split(log, "\n") {
		_, after, ok := strings.Cut(line, msg+" url=")
		if !ok {
			continue
		}
		after = strings.TrimPrefix(after, `"`)
		tail, ok := strings.CutPrefix(after, url)
		if !ok {
			continue
		}
		if i := strings.Index(tail, "timeout="); i >= 0 && i <= 1 {
			tail = strings.TrimLeft(tail[i+len("timeout="):], "0123456789ms")
		}
		if strings.HasPrefix(strings.TrimPrefix(tail, `"`), rest) {
			return true
		}
	}
	return false
}
