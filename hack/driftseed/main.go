// Command driftseed fills a cluster for the `drift` benchmark (hack/bench.sh
// drift): R releases of 10 objects each (4 ConfigMaps, 3 Secrets, 3
// Services), spread over N namespaces. Each release is what a Helm 3 install
// leaves: its objects created (by the "helm" field manager, a plain create,
// which costs the API server less than a server-side apply) with Helm's
// ownership metadata, and one deployed revision whose manifest lists them, in
// a Secret as Helm keeps it. Every -drifted'th release then has one
// ConfigMap value changed out of band (by "kubectl-edit"), so that drift -A
// has something to report.
//
//	go run ./hack/driftseed -kubeconfig $KUBECONFIG -releases 200 -namespaces 20
//	go run ./hack/driftseed -delete      # remove the namespaces again
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

const fieldManager = "helm"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "driftseed:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to fill")
	releases := flag.Int("releases", 200, "number of releases (10 objects each)")
	namespaces := flag.Int("namespaces", 20, "namespaces to spread the releases over")
	drifted := flag.Int("drifted", 10, "every N-th release gets one ConfigMap value changed out of band (0: none)")
	workers := flag.Int("workers", 16, "concurrent writers")
	del := flag.Bool("delete", false, "delete the namespaces instead")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if *del {
		for i := range *namespaces {
			if err := client.CoreV1().Namespaces().Delete(ctx, nsName(i), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	}
	for i := range *namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName(i)}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	store := secret.New(client)
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "drift-bench", Version: "1.0.0", AppVersion: "1.0.0", Type: "application"}}
	jobs := make(chan int)
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range *workers {
		wg.Go(func() {
			for i := range jobs {
				drift := *drifted > 0 && i%*drifted == 0
				if err := seed(ctx, dyn, store, ch, nsName(i%*namespaces), fmt.Sprintf("app-%03d", i), drift); err != nil {
					once.Do(func() { firstErr = err })
				}
				done.Add(1)
			}
		})
	}
	for i := range *releases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "driftseed: %d releases (%d objects) in %d namespaces in %s\n",
		done.Load(), 10*done.Load(), *namespaces, time.Since(start).Round(time.Millisecond))
	return firstErr
}

func nsName(i int) string { return fmt.Sprintf("drift-bench-%02d", i) }

// manifest is the release's rendered manifest: what drift compares.
func manifest(name string) string {
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "---\n# Source: drift-bench/templates/config-%d.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-config-%d\n  labels:\n    app: %s\ndata:\n", i, name, i, name)
		for k := range 5 {
			fmt.Fprintf(&b, "  key-%d: \"value-%d-%d\"\n", k, i, k)
		}
	}
	for i := range 3 {
		fmt.Fprintf(&b, "---\n# Source: drift-bench/templates/secret-%d.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %s-secret-%d\n  labels:\n    app: %s\ntype: Opaque\ndata:\n  user: %s\n  password: %s\n",
			i, name, i, name, b64("admin"), b64(fmt.Sprintf("pw-%s-%d", name, i)))
	}
	for i := range 3 {
		fmt.Fprintf(&b, "---\n# Source: drift-bench/templates/service-%d.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s-svc-%d\n  labels:\n    app: %s\nspec:\n  selector:\n    app: %s\n    part: \"%d\"\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n",
			i, name, i, name, name, i)
	}
	return b.String()
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

var resources = map[string]string{"ConfigMap": "configmaps", "Secret": "secrets", "Service": "services"}

// seed creates the release's objects, as an install does, and writes its record.
func seed(ctx context.Context, dyn dynamic.Interface, store *helmrecord.Store, ch *chart.Chart, ns, name string, drift bool) error {
	m := manifest(name)
	for _, doc := range strings.Split(m, "---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: obj}
		labels := u.GetLabels()
		labels["app.kubernetes.io/managed-by"] = "Helm"
		u.SetLabels(labels)
		u.SetAnnotations(map[string]string{"meta.helm.sh/release-name": name, "meta.helm.sh/release-namespace": ns})
		gvr := schema.GroupVersionResource{Version: "v1", Resource: resources[u.GetKind()]}
		_, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s %s/%s: %w", u.GetKind(), ns, u.GetName(), err)
		}
	}
	at := time.Now()
	err := store.Create(ctx, &release.Release{
		Name: name, Namespace: ns, Version: 1,
		Info: &release.Info{FirstDeployed: release.Time{Time: at}, LastDeployed: release.Time{Time: at},
			Status: release.StatusDeployed, Description: "Install complete"},
		Chart: ch, Config: map[string]any{}, Manifest: m,
	})
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("record of %s/%s: %w", ns, name, err)
	}
	if drift {
		cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		if _, err := dyn.Resource(cms).Namespace(ns).Patch(ctx, name+"-config-0", types.StrategicMergePatchType,
			[]byte(`{"data":{"key-0":"edited"}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
			return fmt.Errorf("drift %s/%s: %w", ns, name, err)
		}
	}
	return nil
}
