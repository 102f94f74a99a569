//go:build e2e

package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// chartDir writes a chart (Chart.yaml named name, then files by path) and
// returns its directory.
func chartDir(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	all := map[string]string{"Chart.yaml": "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"}
	for p, c := range files {
		all[p] = c
	}
	for p, c := range all {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serviceAccount makes a ServiceAccount of ns bound to a Role with rules and
// returns the --as flag that impersonates it, once the authorizer knows the
// binding.
func serviceAccount(t *testing.T, ns, name string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := t.Context()
	admin, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	grant(t, ns, name, rules)
	return "--as=system:serviceaccount:" + ns + ":" + name
}

// grant gives the ServiceAccount exactly rules (replacing what it had).
func grant(t *testing.T, ns, name string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := t.Context()
	admin, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = admin.RbacV1().Roles(ns).Update(ctx, role, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The authorizer sees a Role's rules a moment after they are written.
	user := "system:serviceaccount:" + ns + ":" + name
	deadline := time.Now().Add(30 * time.Second)
	for _, r := range rules {
		for _, v := range r.Verbs {
			for {
				review, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
					User: user, Groups: []string{"system:serviceaccounts", "system:authenticated"},
					ResourceAttributes: &authv1.ResourceAttributes{Namespace: ns, Verb: v, Group: r.APIGroups[0], Resource: r.Resources[0]},
				}}, metav1.CreateOptions{})
				if err == nil && review.Status.Allowed {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s may not %s %s yet: %v", user, v, r.Resources[0], err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
}

func rule(group, resource string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
}

var preflightFiles = map[string]string{
	"templates/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n",
	"templates/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`,
}

// A ServiceAccount allowed ConfigMaps (and its release records and lock) but
// not Deployments: the install is refused before any change, listing what is
// missing; --dry-run=server and diff say the same; nothing is created, no
// release record, no Lease. Once allowed, the same install succeeds.
func TestPreflightRBAC(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := chartDir(t, "preflight", preflightFiles)
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	records := []rbacv1.PolicyRule{rule("", "configmaps", all...), rule("", "secrets", all...), rule("coordination.k8s.io", "leases", all...)}
	as := serviceAccount(t, ns, "deployer", records)

	want := "preflight: missing 3 permission(s), nothing was changed: list deployments.apps in namespace " + ns +
		"; create deployments.apps in namespace " + ns + "; patch deployments.apps in namespace " + ns + " (--skip-preflight skips this check)"
	for _, args := range [][]string{
		{"install", "web", chart, "-n", ns, as},
		{"install", "web", chart, "-n", ns, as, "--dry-run=server"},
		{"diff", "install", "web", chart, "-n", ns, as},
		{"upgrade", "--install", "web", chart, "-n", ns, as, "--json-events"},
	} {
		r := run(t, nil, args...)
		if r.code == 0 || !strings.Contains(r.out+r.err, want) {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant the error %q", strings.Join(args, " "), r.code, r.out, r.err, want)
		}
	}
	nothingWritten := func(what string) {
		t.Helper()
		if exists(t, configMaps, ns, "settings") || exists(t, deployments, ns, "web") {
			t.Errorf("%s: objects were created", what)
		}
		if got := statuses(t, ns, "web"); !strings.Contains(got, "not found") {
			t.Errorf("%s: release records: %s", what, got)
		}
		if exists(t, leases, ns, "kubectl-chart.release.web") {
			t.Errorf("%s: the lock's Lease was created", what)
		}
	}
	nothingWritten("refused install")

	// May read Deployments but not create them: only that is missing.
	grant(t, ns, "deployer", append(records, rule("apps", "deployments", "get", "list", "watch", "patch", "delete")))
	r := run(t, nil, "install", "web", chart, "-n", ns, as)
	if r.code == 0 || !strings.Contains(r.err, "preflight: missing 1 permission(s), nothing was changed: create deployments.apps in namespace "+ns+" (") {
		t.Errorf("install without create: exit %d\n%s", r.code, r.err)
	}
	nothingWritten("install without create")

	grant(t, ns, "deployer", append(records, rule("apps", "deployments", all...)))
	mustRun(t, "install", "web", chart, "-n", ns, as)
	if !exists(t, deployments, ns, "web") || statuses(t, ns, "web") != "1:deployed" {
		t.Errorf("install as the service account: %s", statuses(t, ns, "web"))
	}

	// Uninstall needs delete of what the release has.
	grant(t, ns, "deployer", append(records, rule("apps", "deployments", "get", "list", "watch", "create", "patch")))
	r = run(t, nil, "uninstall", "web", "-n", ns, as)
	if r.code == 0 || !strings.Contains(r.err, "missing 1 permission(s), nothing was changed: delete deployments.apps in namespace "+ns) {
		t.Errorf("uninstall without delete: exit %d\n%s", r.code, r.err)
	}
	if !exists(t, deployments, ns, "web") || !exists(t, configMaps, ns, "settings") || statuses(t, ns, "web") != "1:deployed" {
		t.Errorf("a refused uninstall changed the release: %s", statuses(t, ns, "web"))
	}
}

var leases = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
