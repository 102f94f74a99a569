package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeconfigEnv names a kubeconfig for end-to-end tests to use instead of
// starting their own control plane (e.g. the dev cluster's).
const KubeconfigEnv = "KUBECTL_CHART_TEST_KUBECONFIG"

// Env is the control plane that the tests of one package share.
type Env struct {
	kubeconfig string
	config     *rest.Config
	dynamic    dynamic.Interface
	// cluster is the control plane Main started; nil for $KUBECTL_CHART_TEST_KUBECONFIG's.
	cluster *Cluster
}

// NewEnv connects to the cluster a kubeconfig points at.
func NewEnv(kubeconfig string) (*Env, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", kubeconfig, err)
	}
	// Tests create and watch many objects in quick succession.
	cfg.QPS, cfg.Burst = 100, 200
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create dynamic client: %w", err)
	}
	return &Env{kubeconfig: kubeconfig, config: cfg, dynamic: dyn}, nil
}

// Kubeconfig is the path of an admin kubeconfig, for commands under test.
func (e *Env) Kubeconfig() string { return e.kubeconfig }

// Config returns a copy of the admin client configuration.
func (e *Env) Config() *rest.Config { return rest.CopyConfig(e.config) }

// Dynamic is an admin dynamic client.
func (e *Env) Dynamic() dynamic.Interface { return e.dynamic }

// Cluster is the control plane Main started for the package, whose
// components tests may restart; nil when the tests run on a cluster of
// $KUBECTL_CHART_TEST_KUBECONFIG.
func (e *Env) Cluster() *Cluster { return e.cluster }

// Main runs a package's tests against a control plane and returns the exit
// code, for TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cluster.Main(m, func(e *cluster.Env) { env = e })) }
//
// It uses the cluster of $KUBECTL_CHART_TEST_KUBECONFIG when set; otherwise it
// builds the binaries if needed, starts a control plane, and stops it after
// the tests. It fails (never skips) when there is no cluster to test on. The
// state directory, with each component's log, is kept when tests fail.
func Main(m *testing.M, use func(*Env)) int {
	ctx := context.Background()
	if kubeconfig := os.Getenv(KubeconfigEnv); kubeconfig != "" {
		env, err := NewEnv(kubeconfig)
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %s: %v\n", KubeconfigEnv, err)
			return 1
		}
		use(env)
		return m.Run()
	}
	bins, err := Build(ctx, BuildOptions{Log: os.Stderr})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot build the control plane: %v\n", err)
		return 1
	}
	stateDir, err := os.MkdirTemp("", "kubectl-chart-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: create state directory: %v\n", err)
		return 1
	}
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	c, err := Start(startCtx, Options{Binaries: bins, StateDir: stateDir, Log: os.Stderr})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n(logs in %s)\n", err, stateDir)
		return 1
	}
	code := func() int {
		env, err := NewEnv(c.Kubeconfig)
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
			return 1
		}
		env.cluster = c
		use(env)
		return m.Run()
	}()
	if err := c.Stop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "e2e: control-plane logs kept in %s\n", stateDir)
		return code
	}
	if err := os.RemoveAll(stateDir); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: remove state directory: %v\n", err)
	}
	return code
}

// Namespace creates a namespace with a random name for one test, waits for
// its default ServiceAccount (pods are refused until it exists), and deletes
// it when the test ends, waiting until it is gone.
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	name := "e2e-" + utilrand.String(8)
	e.NamedNamespace(t, name)
	return name
}

// NamedNamespace is Namespace of a name the caller chose (unique to it).
func (e *Env) NamedNamespace(t testing.TB, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata": map[string]any{
			"name":   name,
			"labels": map[string]any{"kubectl-chart.dev/e2e": "true"},
		},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.dynamic.Resource(coreResource("namespaces")).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := e.deleteNamespaceNow(ctx, name); err != nil {
			t.Errorf("%v", err)
		}
	})
	if _, err := WaitFor(ctx, e.dynamic, coreResource("serviceaccounts"), name, "default",
		func(*unstructured.Unstructured) bool { return true }); err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
}

// DeleteNamespace deletes a namespace and waits until the controller manager
// has emptied and removed it.
func (e *Env) DeleteNamespace(ctx context.Context, name string) error {
	err := e.dynamic.Resource(coreResource("namespaces")).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	if err := WaitGone(ctx, e.dynamic, coreResource("namespaces"), "", name); err != nil {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	return nil
}

// deleteNamespaceNow is DeleteNamespace for cleanups, which only need the
// namespace gone: once it is terminating (no new pods), its pods are deleted
// without grace. Otherwise the namespace controller, seeing pods with their
// 30 s termination grace period, waits some 20 s before it looks again.
func (e *Env) deleteNamespaceNow(ctx context.Context, name string) error {
	err := e.dynamic.Resource(coreResource("namespaces")).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	now := int64(0)
	err = e.dynamic.Resource(coreResource("pods")).Namespace(name).DeleteCollection(ctx,
		metav1.DeleteOptions{GracePeriodSeconds: &now}, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pods in namespace %s: %w", name, err)
	}
	return e.DeleteNamespace(ctx, name)
}
