package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// reviewServer answers access reviews, allowing everything, and holds every
// answer until callers reviews have been asked or a moment has passed, so
// that callers asking at once overlap.
func reviewServer(t *testing.T, callers int) (*httptest.Server, func() map[string]int) {
	t.Helper()
	var (
		mu    sync.Mutex
		asked = map[string]int{}
		all   = make(chan struct{})
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		mu.Lock()
		asked[kind]++
		if asked[kind] == callers {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(200 * time.Millisecond):
		}
		w.Header().Set("Content-Type", "application/json")
		review, status := "SelfSubjectAccessReview", map[string]any{"allowed": true}
		if kind == "selfsubjectrulesreviews" {
			review = "SelfSubjectRulesReview"
			status = map[string]any{"resourceRules": []any{map[string]any{"verbs": []string{"*"}, "apiGroups": []string{"*"}, "resources": []string{"*"}}}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": review, "status": status})
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range asked {
			out[k] = v
		}
		return out
	}
}

func TestReviewAccessAskedAtOnceIsAskedOnce(t *testing.T) {
	tests := map[string]struct {
		access ports.Access
		review string
	}{
		"namespaced: the namespace's rules": {access: ports.Access{Verb: "list", Resource: "configmaps", Namespace: "apps"}, review: "selfsubjectrulesreviews"},
		"cluster-scoped: one access review": {access: ports.Access{Verb: "list", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, review: "selfsubjectaccessreviews"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			const callers = 8
			srv, asked := reviewServer(t, callers)
			c, err := New(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, callers)
			for i := range callers {
				wg.Go(func() {
					var denied []ports.Access
					denied, errs[i] = c.ReviewAccess(context.Background(), []ports.Access{tc.access})
					if len(denied) > 0 {
						t.Errorf("denied %v", denied)
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := asked(); got[tc.review] != 1 || len(got) != 1 {
				t.Errorf("%d callers at once asked %v, want one %s", callers, got, tc.review)
			}
		})
	}
}
