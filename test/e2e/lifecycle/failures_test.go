//go:build e2e

package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// A change to an immutable field fails; --force-replace recreates the object.
func TestImmutableFieldForceReplace(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	uid := get(t, deployments, ns, "web-demo").GetUID()
	r := run(t, nil, "upgrade", "web", chart, "-n", ns, "--set", "variant=blue")
	if r.code == 0 || !strings.Contains(r.err, "field is immutable") {
		t.Fatalf("immutable change: exit %d\n%s", r.code, r.err)
	}
	if got := statuses(t, ns, "web"); got != "1:deployed 2:failed" {
		t.Errorf("history = %s", got)
	}
	mustRun(t, "upgrade", "web", chart, "-n", ns, "--set", "variant=blue", "--force-replace", "--wait", "--timeout", "60s")
	d := get(t, deployments, ns, "web-demo")
	if d.GetUID() == uid {
		t.Error("the Deployment was not recreated")
	}
	if v, _, _ := unstructured.NestedString(d.Object, "spec", "selector", "matchLabels", "variant"); v != "blue" {
		t.Errorf("selector variant = %q", v)
	}
}

// A ServiceAccount that may only read gets a clear error before anything changes.
func TestReadOnlyServiceAccount(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := context.Background()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}},
	}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "reader", &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := env.Config()
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["reader"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	kc.Contexts["reader"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "reader", Namespace: ns}
	kc.CurrentContext = "reader"
	path := filepath.Join(t.TempDir(), "reader.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	// The preflight refuses before anything changes, listing what is missing;
	// without it, the API server's own refusal names the account.
	r := run(t, nil, "install", "web", demoChart(t), "--kubeconfig", path, "--skip-crds")
	if r.code == 0 || !strings.Contains(r.err, "preflight: missing") || !strings.Contains(r.err, "create secrets in namespace "+ns) {
		t.Fatalf("read-only install: exit %d\n%s", r.code, r.err)
	}
	r = run(t, nil, "install", "web", demoChart(t), "--kubeconfig", path, "--skip-crds", "--skip-preflight")
	if r.code == 0 || !strings.Contains(r.err, "forbidden") || !strings.Contains(r.err, "system:serviceaccount:"+ns+":reader") {
		t.Fatalf("read-only install without the preflight: exit %d\n%s", r.code, r.err)
	}
	secrets, err := client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cms, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=Helm"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		if strings.HasPrefix(s.Name, "sh.helm.release") || s.Name == "web-demo" {
			t.Errorf("a refused install wrote %s", s.Name)
		}
	}
	if len(cms.Items) > 0 {
		t.Errorf("a refused install created %d config maps", len(cms.Items))
	}
	t.Logf("error: %s", strings.TrimSpace(r.err))
}
