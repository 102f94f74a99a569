//go:build e2e

// Command benchseed fills a cluster with release records for the `list`
// benchmark (hack/bench.sh list): R releases × N revisions in Secrets, spread
// over several namespaces, each revision a realistic record (a chart of a few
// dozen templates, values, a rendered manifest). Revisions 1..N-1 are
// superseded, N is deployed.
//
//	go run -tags e2e ./test/e2e/releases/benchseed -kubeconfig $KUBECONFIG -releases 1000 -revisions 10
//
// With -helm-format the records carry no kubectl-chart annotations, exactly as
// Helm writes them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/test/benchrecords"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchseed:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to fill")
	releases := flag.Int("releases", 1000, "number of releases")
	revisions := flag.Int("revisions", 10, "revisions per release")
	namespaces := flag.Int("namespaces", 10, "namespaces to spread the releases over")
	workers := flag.Int("workers", 16, "concurrent writers")
	helmFormat := flag.Bool("helm-format", false, "write records exactly as Helm does, without kubectl-chart's summary annotation")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for i := range *namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName(i)}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	store := secret.New(client)
	ch := benchrecords.Chart()
	jobs := make(chan *release.Release)
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				if err := writeRetrying(ctx, client, store, r, *helmFormat); err != nil {
					once.Do(func() { firstErr = err })
				}
				if n := done.Add(1); n%1000 == 0 {
					fmt.Fprintf(os.Stderr, "benchseed: %d records in %s\n", n, time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	for i := range *releases {
		for rev := 1; rev <= *revisions; rev++ {
			jobs <- benchrecords.Release(ch, nsName(i%*namespaces), fmt.Sprintf("app-%04d", i), rev, *revisions)
		}
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "benchseed: %d records in %s\n", done.Load(), time.Since(start).Round(time.Second))
	return firstErr
}

func nsName(i int) string { return fmt.Sprintf("bench-%02d", i) }

// writeRetrying is write, tried again after a failure: a control plane that
// shares a loaded machine times requests out now and then, and one lost write
// must not end a benchmark. A write that failed may have happened: its
// record then exists, which write accepts.
func writeRetrying(ctx context.Context, client kubernetes.Interface, store *helmrecord.Store, r *release.Release, helmFormat bool) error {
	var err error
	for attempt, pause := 0, time.Second; attempt < 6; attempt, pause = attempt+1, pause*2 {
		if attempt > 0 {
			fmt.Fprintf(os.Stderr, "benchseed: retrying in %s: %v\n", pause, err)
			time.Sleep(pause)
		}
		if err = write(ctx, client, store, r, helmFormat); err == nil {
			return nil
		}
	}
	return err
}

func write(ctx context.Context, client kubernetes.Interface, store *helmrecord.Store, r *release.Release, helmFormat bool) error {
	err := store.Create(ctx, r)
	if err != nil && !errors.Is(err, ports.ErrReleaseExists) {
		return err
	}
	if !helmFormat {
		return nil
	}
	name := helmrecord.ObjectName(r.Name, r.Version)
	s, err := client.CoreV1().Secrets(r.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if _, ok := s.Annotations[helmrecord.AnnotationSummary]; !ok {
		return nil
	}
	delete(s.Annotations, helmrecord.AnnotationSummary)
	_, err = client.CoreV1().Secrets(r.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	return err
}
