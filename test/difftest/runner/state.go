package runner

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// releaseType is the type of the Secrets Helm keeps release records in.
const releaseType = "helm.sh/release.v1"

// stateKinds are the objects a sequence's charts make, compared after each step.
func stateKinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{
		{Version: "v1", Resource: "configmaps"},
		{Version: "v1", Resource: "secrets"},
		{Version: "v1", Resource: "services"},
		{Version: "v1", Resource: "pods"},
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Group: "batch", Version: "v1", Resource: "jobs"},
	}
}

// settleTimeout bounds the wait for objects being deleted to go.
const settleTimeout = 30 * time.Second

// settle waits until no object of the side's is being deleted, at most
// settleTimeout: an uninstall with --cascade foreground returns while the
// garbage collector still holds its objects (both Helms do), so that what
// the state read would see depends on the collector's timing.
func (r SequenceRunner) settle(ctx context.Context, sd *side) error {
	deadline := time.Now().Add(settleTimeout)
	for {
		deleting := false
		for _, ns := range []string{sd.ns, sd.ns2} {
			for _, gvr := range stateKinds() {
				list, err := r.Client.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return fmt.Errorf("list %s in %s: %w", gvr.Resource, ns, err)
				}
				for _, o := range list.Items {
					deleting = deleting || o.GetDeletionTimestamp() != nil
				}
			}
		}
		if !deleting || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// state reads a side's release records and objects, in both its namespaces,
// once the objects being deleted are gone.
func (r SequenceRunner) state(ctx context.Context, sd *side) (State, error) {
	if err := r.settle(ctx, sd); err != nil {
		return State{}, err
	}
	var records, objects strings.Builder
	for _, ns := range []string{sd.ns, sd.ns2} {
		for _, gvr := range stateKinds() {
			list, err := r.Client.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return State{}, fmt.Errorf("list %s in %s: %w", gvr.Resource, ns, err)
			}
			sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].GetName() < list.Items[j].GetName() })
			for i := range list.Items {
				o := &list.Items[i]
				if o.GetName() == "kube-root-ca.crt" || len(o.GetOwnerReferences()) > 0 {
					continue // the cluster's, or its controllers' (pods of Deployments and Jobs)
				}
				where := fmt.Sprintf("--- %s %s/%s\n", gvr.Resource, ns, o.GetName())
				if t, _, _ := unstructured.NestedString(o.Object, "type"); t == releaseType {
					text, err := record(o)
					if err != nil {
						return State{}, fmt.Errorf("%s: %w", strings.TrimSpace(where), err)
					}
					records.WriteString(where + text)
					continue
				}
				normalizeObject(o, r.Dialect)
				data, err := yaml.Marshal(o.Object)
				if err != nil {
					return State{}, err
				}
				objects.WriteString(where + string(data))
			}
		}
	}
	mask := func(s string) string { return maskVolatile(sd.replacements.Replace(s)) }
	return State{Records: mask(records.String()), Objects: mask(objects.String())}, nil
}

// record prints a release Secret: its labels and its release, decoded, as
// indented JSON with keys sorted.
func record(o *unstructured.Unstructured) (string, error) {
	labels := o.GetLabels()
	for _, k := range []string{"createdAt", "modifiedAt"} {
		if _, ok := labels[k]; ok {
			labels[k] = "<unix time>"
		}
	}
	data, _, _ := unstructured.NestedString(o.Object, "data", "release")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", fmt.Errorf("decode record: %w", err)
	}
	// The Secret's data is base64 of Helm's own base64 of gzip'd JSON.
	if raw, err = base64.StdEncoding.DecodeString(string(raw)); err != nil {
		return "", fmt.Errorf("decode record: %w", err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return "", fmt.Errorf("decompress record: %w", err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, 64<<20)); err != nil {
			return "", fmt.Errorf("decompress record: %w", err)
		}
	}
	var rel any
	if err := json.Unmarshal(raw, &rel); err != nil {
		return "", fmt.Errorf("record JSON: %w", err)
	}
	js, err := json.MarshalIndent(map[string]any{"labels": labels, "release": rel}, "", "  ")
	if err != nil {
		return "", err
	}
	return string(js) + "\n", nil
}

// normalizeObject leaves out what the server generates (uids, versions,
// times, addresses, status) and what its controllers write on their own time.
func normalizeObject(o *unstructured.Unstructured, d generator.Dialect) {
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "selfLink", "namespace"} {
		unstructured.RemoveNestedField(o.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(o.Object, "status")
	unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
	unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
	if d == generator.Helm3 {
		// The rule helm3-server-side-apply (README, "Installed as helm"): we
		// apply server-side in both dialects where Helm 3 patches client-side,
		// so the objects' managedFields say Apply where Helm 3's say Update. The
		// objects' content is compared; who wrote it is not.
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	}
	if managed, ok, _ := unstructured.NestedSlice(o.Object, "metadata", "managedFields"); ok {
		var kept []any
		for _, m := range managed {
			entry, ok := m.(map[string]any)
			if !ok || entry["subresource"] == "status" || entry["manager"] == "kube-controller-manager" {
				continue // the controllers' entries follow their timing
			}
			delete(entry, "time")
			kept = append(kept, entry)
		}
		_ = unstructured.SetNestedSlice(o.Object, kept, "metadata", "managedFields")
	}
	// The Deployment controller's revision counter, written when it gets to it.
	unstructured.RemoveNestedField(o.Object, "metadata", "annotations", "deployment.kubernetes.io/revision")
	if a := o.GetAnnotations(); a != nil && len(a) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
	}
}
