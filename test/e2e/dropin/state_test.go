//go:build e2e

package dropin

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var lockDigest = regexp.MustCompile(`(?m)^digest: sha256:[0-9a-f]+$`)

// kinds are the objects a side's charts and tools make, compared after each step.
func kinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{
		{Version: "v1", Resource: "configmaps"},
		{Version: "v1", Resource: "secrets"},
		{Version: "v1", Resource: "services"},
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Group: "batch", Version: "v1", Resource: "jobs"},
	}
}

// objects prints the side's objects, namespace by namespace in placeholder
// order, with what the server generates (uids, versions, times, addresses,
// status) left out; release records show only their name and labels, since
// the records themselves are compared as Helm reads them.
func (s *side) objects(ctx context.Context, t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, placeholder := range sortedKeys(s.namespaces) {
		ns := s.namespaces[placeholder]
		for _, gvr := range kinds() {
			list, err := env.Dynamic().Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Errorf("list %s in %s: %v", gvr.Resource, ns, err)
				return ""
			}
			for i := range list.Items {
				o := &list.Items[i]
				if o.GetName() == "kube-root-ca.crt" {
					continue
				}
				normalize(o, s.dialect)
				data, err := yaml.Marshal(o.Object)
				if err != nil {
					t.Errorf("print %s %s/%s: %v", gvr.Resource, ns, o.GetName(), err)
					return ""
				}
				fmt.Fprintf(&b, "--- %s %s/%s\n%s", gvr.Resource, placeholder, o.GetName(), data)
			}
		}
	}
	return s.mask(b.String())
}

func normalize(o *unstructured.Unstructured, d dialect) {
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "selfLink"} {
		unstructured.RemoveNestedField(o.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(o.Object, "status")
	unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
	unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
	if d.name == "helm3" {
		// A known difference (README, "Coming from Helm"): we apply server-side
		// in both dialects, where Helm 3 patches client-side, so the objects'
		// managedFields say Apply where Helm 3's say Update (with the fields the
		// server defaulted). The objects' content is compared; who wrote it is not.
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	}
	if managed, ok, _ := unstructured.NestedSlice(o.Object, "metadata", "managedFields"); ok {
		// The controllers' status entries follow their timing (a rollout's
		// unavailableReplicas comes and goes); the clients' entries stay.
		var kept []any
		for _, m := range managed {
			entry, ok := m.(map[string]any)
			if !ok || entry["subresource"] == "status" {
				continue
			}
			delete(entry, "time")
			kept = append(kept, entry)
		}
		_ = unstructured.SetNestedSlice(o.Object, kept, "metadata", "managedFields")
	}
	if t, _, _ := unstructured.NestedString(o.Object, "type"); t == "helm.sh/release.v1" {
		labels := o.GetLabels()
		for _, k := range []string{"createdAt", "modifiedAt"} {
			if _, ok := labels[k]; ok {
				labels[k] = "<unix time>"
			}
		}
		o.Object = map[string]any{"kind": o.GetKind(), "metadata": map[string]any{"name": o.GetName(), "labels": labels}}
	}
}

// records prints the releases as the real Helm reads them back: list, and
// each release's history, metadata and everything `get all` shows.
func (s *side) records(ctx context.Context, t *testing.T) string {
	t.Helper()
	var b strings.Builder
	helm := func(args ...string) string {
		r := s.run(ctx, true, ".", nil, s.realHelm, args...)
		fmt.Fprintf(&b, "$ helm %s (exit %d)\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		return r.stdout
	}
	for _, placeholder := range sortedKeys(s.namespaces) {
		ns := s.namespaces[placeholder]
		list := []string{"list", "-n", ns}
		if s.dialect.name == "helm3" {
			list = append(list, "--all") // Helm 4 lists every status by default and has no --all
		}
		helm(list...)
		for _, name := range strings.Fields(helm(append(list, "-q")...)) {
			helm("history", name, "-n", ns)
			helm("get", "metadata", name, "-n", ns)
			helm("get", "all", name, "-n", ns)
		}
	}
	return s.mask(b.String())
}

// files prints the work tree: each file's path and masked text, an archive's
// entries with their contents' digests (archives carry times), git's own
// files left out. Like objects and records, it reports errors with t.Errorf:
// both sides are read at once, off the test's goroutine.
func (s *side) files(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasSuffix(d.Name(), ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(s.dir, path)
		fmt.Fprintf(&b, "=== %s\n", rel)
		if strings.HasSuffix(path, ".tgz") {
			return archiveEntries(&b, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if d.Name() == "helmfile.lock" {
			// helmfile names each dependency after its release's namespace, which
			// differs between the sides, so their digests differ too.
			data = lockDigest.ReplaceAll(data, []byte("digest: <digest of namespace names>"))
		}
		b.Write(data)
		return nil
	})
	if err != nil {
		t.Errorf("read work tree %s: %v", s.dir, err)
	}
	return s.mask(b.String())
}

func archiveEntries(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		sum := sha256.New()
		if _, err := io.Copy(sum, tr); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		fmt.Fprintf(w, "  %s %o %x\n", h.Name, h.Mode, sum.Sum(nil))
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
