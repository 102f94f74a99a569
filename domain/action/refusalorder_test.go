package action_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// objectsChart renders the objects its values list ("objects": kind, name,
// frozen), in that order within one kind, each holding the revision: a
// frozen ConfigMap (immutable) refuses every later change, a name with
// capitals is refused on creation.
func objectsChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "o", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/objects.yaml", Data: []byte(`{{- range .Values.objects }}
---
apiVersion: v1
kind: {{ .kind }}
metadata:
  name: {{ .name }}
{{- if .frozen }}
immutable: true
{{- end }}
{{- if eq .kind "Secret" }}
stringData:
{{- else }}
data:
{{- end }}
  revision: "{{ $.Release.Revision }}"
{{- end }}
`)}},
	}
}

// objectsOf are chart values listing objects: "cm:a" a ConfigMap a,
// "cm:a!" a frozen one, "secret:s" a Secret.
func objectsOf(specs ...string) map[string]any {
	var objs []any
	for _, s := range specs {
		kind, name, _ := strings.Cut(s, ":")
		frozen := strings.HasSuffix(name, "!")
		objs = append(objs, map[string]any{
			"kind": map[string]string{"cm": "ConfigMap", "secret": "Secret"}[kind], "name": strings.TrimSuffix(name, "!"), "frozen": frozen,
		})
	}
	return map[string]any{"objects": objs}
}

// revisions reads what revision each named object holds ("-": none).
func revisions(t *testing.T, c *memcluster.Cluster, specs ...string) string {
	t.Helper()
	var out []string
	for _, s := range specs {
		kind, name, _ := strings.Cut(s, ":")
		ref := ports.ObjectRef{APIVersion: "v1", Kind: map[string]string{"cm": "ConfigMap", "secret": "Secret"}[kind], Namespace: amNS, Name: name}
		o, err := c.Get(context.Background(), ref)
		switch {
		case errors.Is(err, ports.ErrObjectNotFound):
			out = append(out, s+"=-")
			continue
		case err != nil:
			t.Fatal(err)
		}
		data, _ := o["data"].(map[string]any)
		if data == nil {
			data, _ = o["stringData"].(map[string]any)
		}
		out = append(out, fmt.Sprintf("%s=%v", s, data["revision"]))
	}
	return strings.Join(out, " ")
}

// The server's refusals, as memcluster words them.
const (
	badName = `ConfigMap "B" is invalid: metadata.name: Invalid value: "B": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	frozenA = "ConfigMap \"a\" is invalid: data: Forbidden: field is immutable when `immutable` is set"
	frozenC = "ConfigMap \"c\" is invalid: data: Forbidden: field is immutable when `immutable` is set"
)

// helm4Apply is Helm 4's refusal of its server-side apply of ConfigMap name.
func helm4Apply(name, msg string) string {
	return fmt.Sprintf("server-side apply failed for object %s/%s /v1, Kind=ConfigMap: %s", amNS, name, msg)
}

// An upgrade writes its objects as both Helms' update does, one by one in
// manifest order: it stops at the first object the server refuses to create
// (what follows keeps the revision before, nothing is deleted, and that
// refusal alone is reported), and goes on past refused updates, reporting
// them all in manifest order joined by " && " (Helm 3's --force, which
// replaces, too), deleting nothing.
func TestUpgradeWritesInHelmsOrder(t *testing.T) {
	tests := map[string]struct {
		dialect      dialect.Dialect
		helmForce    bool
		first, next  []string
		want         string
		revisionsRef []string
		revisions    string
	}{
		"a refused create stops, Helm 4": {
			dialect: dialect.Helm4,
			first:   []string{"secret:s", "cm:a", "cm:c", "cm:gone"},
			next:    []string{"secret:s", "cm:a", "cm:B", "cm:c"},
			want:    "failed to create resource: " + helm4Apply("B", badName),
			// The Secret goes first (kind order), a before B; c after it
			// is left, and so is what the revision drops.
			revisionsRef: []string{"secret:s", "cm:a", "cm:c", "cm:gone"},
			revisions:    "secret:s=2 cm:a=2 cm:c=1 cm:gone=1",
		},
		"a refused create stops, Helm 3": {
			dialect:      dialect.Helm3,
			first:        []string{"secret:s", "cm:a", "cm:c", "cm:gone"},
			next:         []string{"secret:s", "cm:a", "cm:B", "cm:c"},
			want:         "failed to create resource: " + badName,
			revisionsRef: []string{"secret:s", "cm:a", "cm:c", "cm:gone"},
			revisions:    "secret:s=2 cm:a=2 cm:c=1 cm:gone=1",
		},
		"refused updates go on, Helm 4": {
			dialect:      dialect.Helm4,
			first:        []string{"cm:a!", "cm:b", "cm:c!", "cm:gone"},
			next:         []string{"cm:a!", "cm:b", "cm:c!", "cm:d"},
			want:         helm4Apply("a", frozenA) + " && " + helm4Apply("c", frozenC),
			revisionsRef: []string{"cm:a", "cm:b", "cm:c", "cm:d", "cm:gone"},
			revisions:    "cm:a=1 cm:b=2 cm:c=1 cm:d=2 cm:gone=1",
		},
		"refused updates go on, Helm 3": {
			dialect:      dialect.Helm3,
			first:        []string{"cm:a!", "cm:b", "cm:c!", "cm:gone"},
			next:         []string{"cm:a!", "cm:b", "cm:c!", "cm:d"},
			want:         `cannot patch "a" with kind ConfigMap: ` + frozenA + ` && cannot patch "c" with kind ConfigMap: ` + frozenC,
			revisionsRef: []string{"cm:a", "cm:b", "cm:c", "cm:d", "cm:gone"},
			revisions:    "cm:a=1 cm:b=2 cm:c=1 cm:d=2 cm:gone=1",
		},
		"refused replacements go on, Helm 3 --force": {
			dialect:      dialect.Helm3,
			helmForce:    true,
			first:        []string{"cm:a!", "cm:b", "cm:c!"},
			next:         []string{"cm:a!", "cm:b", "cm:c!"},
			want:         "failed to replace object: " + frozenA + " && failed to replace object: " + frozenC,
			revisionsRef: []string{"cm:a", "cm:b", "cm:c"},
			revisions:    "cm:a=1 cm:b=2 cm:c=1",
		},
		"a refused create after a refused update reports the create alone": {
			dialect:      dialect.Helm3,
			first:        []string{"cm:a!", "cm:c"},
			next:         []string{"cm:a!", "cm:B", "cm:c"},
			want:         "failed to create resource: " + badName,
			revisionsRef: []string{"cm:a", "cm:c"},
			revisions:    "cm:a=1 cm:c=1",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, _, err := installThenUpgrade(t, tc.dialect, tc.first, tc.next, tc.helmForce)
			f := action.Failures(err)
			if len(f) != 1 || !f[0].Updating {
				t.Fatalf("upgrade: %v, want a failure while updating", err)
			}
			if got := f[0].Cause.Error(); got != tc.want {
				t.Errorf("failure\n got %s\nwant %s", got, tc.want)
			}
			if got := revisions(t, c, tc.revisionsRef...); got != tc.revisions {
				t.Errorf("objects %s, want %s", got, tc.revisions)
			}
		})
	}
}

// A fresh install creates every object, as both Helms' create does, and lists
// every refusal in manifest order: Helm 3 in its list of errors, Helm 4 one a
// line.
func TestInstallListsEveryRefusal(t *testing.T) {
	tests := map[string]struct {
		dialect dialect.Dialect
		want    string
	}{
		"helm4": {dialect.Helm4, helm4Apply("B", badName) + "\n" + helm4Apply("C", strings.ReplaceAll(badName, `"B"`, `"C"`))},
		"helm3": {dialect.Helm3, "2 errors occurred:\n\t* " + badName + "\n\t* " + strings.ReplaceAll(badName, `"B"`, `"C"`) + "\n\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := memcluster.New(memcluster.WithNamespaces(amNS))
			l := &action.Lifecycle{Cluster: c, Store: memory.New()}
			spec := action.ReleaseSpec{Chart: objectsChart(), Values: objectsOf("cm:a", "cm:B", "cm:C", "cm:d"), ReleaseName: "r", Namespace: amNS, Dialect: tc.dialect}
			_, err := l.Install(context.Background(), action.InstallRequest{ReleaseSpec: spec})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("install: %v\nwant it to hold %q", err, tc.want)
			}
			if got, want := revisions(t, c, "cm:a", "cm:d"), "cm:a=1 cm:d=1"; got != want {
				t.Errorf("objects %s, want %s", got, want)
			}
		})
	}
}

// A hook whose objects the server refuses (a v1 List of two) fails with
// every refusal, as both Helms' creation of a hook's objects reports them:
// Helm 3 in its list of errors, Helm 4 one a line, each naming the object it
// applied server-side.
func TestHookListsEveryRefusal(t *testing.T) {
	hook := `apiVersion: v1
kind: List
metadata:
  annotations:
    helm.sh/hook: pre-install
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: B}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: ok}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: C}}
`
	badC := strings.ReplaceAll(badName, `"B"`, `"C"`)
	tests := map[string]struct {
		dialect dialect.Dialect
		want    string
	}{
		"helm4": {dialect.Helm4, "failed pre-install: warning: Hook pre-install o/templates/hook.yaml failed: " + helm4Apply("B", badName) + "\n" + helm4Apply("C", badC)},
		"helm3": {dialect.Helm3, "failed pre-install: warning: Hook pre-install o/templates/hook.yaml failed: 2 errors occurred:\n\t* " + badName + "\n\t* " + badC + "\n\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := memcluster.New(memcluster.WithNamespaces(amNS))
			l := &action.Lifecycle{Cluster: c, Store: memory.New()}
			ch := objectsChart()
			ch.Templates = append(ch.Templates, &chart.File{Name: "templates/hook.yaml", Data: []byte(hook)})
			spec := action.ReleaseSpec{Chart: ch, Values: objectsOf("cm:a"), ReleaseName: "r", Namespace: amNS, Dialect: tc.dialect}
			_, err := l.Install(context.Background(), action.InstallRequest{ReleaseSpec: spec})
			if err == nil || err.Error() != tc.want {
				t.Errorf("install:\n got %v\nwant %s", err, tc.want)
			}
			if got, want := revisions(t, c, "cm:ok", "cm:a"), "cm:ok=<nil> cm:a=-"; got != want {
				t.Errorf("objects %s, want %s", got, want)
			}
		})
	}
}

// An upgrade after a failed one starts, as both Helms', from the revision
// deployed before it: what that one has and the new one drops is deleted,
// although the failed revision (whose create was refused before it deleted
// anything) no longer had it.
func TestUpgradeAfterAFailedOneStartsFromTheDeployed(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(amNS))
	l := &action.Lifecycle{Cluster: c, Store: memory.New()}
	spec := action.ReleaseSpec{Chart: objectsChart(), Values: objectsOf("cm:a", "cm:gone"), ReleaseName: "r", Namespace: amNS, Dialect: dialect.Helm4}
	if _, err := l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	spec.Values = objectsOf("cm:a", "cm:B")
	if _, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the upgrade creating B did not fail")
	}
	if got, want := revisions(t, c, "cm:a", "cm:gone"), "cm:a=2 cm:gone=1"; got != want {
		t.Errorf("after the failed upgrade: %s, want %s", got, want)
	}
	spec.Values = objectsOf("cm:a")
	if _, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	if got, want := revisions(t, c, "cm:a", "cm:gone"), "cm:a=3 cm:gone=-"; got != want {
		t.Errorf("after the next upgrade: %s, want %s", got, want)
	}
}

// An upgrade's dry run is described as asked (--description), as both Helms
// describe it; without one, and for the install an upgrade --install makes,
// as a dry run.
func TestUpgradeDryRunDescription(t *testing.T) {
	tests := map[string]struct {
		install     bool
		description string
		want        string
	}{
		"upgrade described":     {description: "second", want: "second"},
		"upgrade":               {want: "Dry run complete"},
		"install by an upgrade": {install: true, description: "second", want: "Dry run complete"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			l := &action.Lifecycle{Cluster: memcluster.New(memcluster.WithNamespaces(amNS)), Store: memory.New()}
			spec := action.ReleaseSpec{Chart: objectsChart(), Values: objectsOf("cm:a"), ReleaseName: "r", Namespace: amNS, Dialect: dialect.Helm3}
			if !tc.install {
				if _, err := l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
					t.Fatal(err)
				}
			}
			spec.DryRun, spec.Description = action.DryRunClient, tc.description
			rel, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec, Install: tc.install})
			if err != nil {
				t.Fatal(err)
			}
			if rel.Info.Description != tc.want {
				t.Errorf("description %q, want %q", rel.Info.Description, tc.want)
			}
		})
	}
}

// A rollback tells of each object it writes over as it is, the revision it
// replaces not having it (what Helm 4 logs), in manifest order: here those
// the failed upgrade, stopped by its refused create, did not delete.
func TestRollbackTellsOfObjectsTakenAsTheyAre(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	l := &action.Lifecycle{Cluster: memcluster.New(memcluster.WithNamespaces(amNS)), Store: memory.New(), Events: func(e action.Event) {
		if e.Type == action.EventBaseline {
			mu.Lock()
			got = append(got, e.Ref.String())
			mu.Unlock()
		}
	}}
	spec := action.ReleaseSpec{Chart: objectsChart(), Values: objectsOf("secret:s", "cm:a", "cm:x", "cm:z"), ReleaseName: "r", Namespace: amNS, Dialect: dialect.Helm4}
	if _, err := l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	spec.Values = objectsOf("cm:a", "cm:B")
	if _, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the upgrade creating B did not fail")
	}
	if len(got) > 0 {
		t.Errorf("the upgrade told of %v, want none", got)
	}
	if _, err := l.Rollback(ctx, action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if want := "Secret apps/s ConfigMap apps/x ConfigMap apps/z"; strings.Join(got, " ") != want {
		t.Errorf("told of %v, want %s", got, want)
	}
}

// An upgrade back to the deployed revision's objects after a failed one
// writes what the failed one changed back: an object is left alone only when
// the revision applied last had it as it is too.
func TestUpgradeAfterAFailedOneUndoesItsWrites(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(amNS))
	l := &action.Lifecycle{Cluster: c, Store: memory.New()}
	ch := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "o", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/x.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  k: v
{{- if .Values.extra }}
  extra: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: B
{{- end }}
`)}},
	}
	spec := action.ReleaseSpec{Chart: ch, ReleaseName: "r", Namespace: amNS, Dialect: dialect.Helm4}
	if _, err := l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	spec.Values = map[string]any{"extra": true}
	if _, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the upgrade creating B did not fail")
	}
	spec.Values = nil
	if _, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	x, err := c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if data := x["data"].(map[string]any); data["extra"] != nil {
		t.Errorf("x keeps what the failed upgrade wrote: %v", data)
	}
}

// installThenUpgrade installs release r with the objects first (objectsOf)
// on a new memcluster, then upgrades it to next (helmForce: Helm's --force),
// returning the upgrade's error.
func installThenUpgrade(t *testing.T, d dialect.Dialect, first, next []string, helmForce bool) (*memcluster.Cluster, *action.Lifecycle, error) {
	t.Helper()
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(amNS))
	l := &action.Lifecycle{Cluster: c, Store: memory.New()}
	spec := action.ReleaseSpec{Chart: objectsChart(), Values: objectsOf(first...), ReleaseName: "r", Namespace: amNS, Dialect: d}
	if _, err := l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	spec.Values = objectsOf(next...)
	_, err := l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec, ForceReplace: helmForce, HelmForceReplace: helmForce})
	return c, l, err
}
