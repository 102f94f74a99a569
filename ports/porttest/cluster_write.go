package porttest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testClusterCreate: a create makes an object that does not exist, owned by
// its field manager with an update (Helm 3's hooks); an object that exists
// is refused in the server's words, and left as it was.
func testClusterCreate(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	live, err := c.Create(ctx, configMap(t, f.Namespace, "web", `{"size":"1"}`), "")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if field(live, "metadata", "uid") == "" || rv(live) == "" {
		t.Errorf("created object lacks uid or resourceVersion: %v", live["metadata"])
	}
	if got := ManagersOf(live); !slices.Equal(got, []string{ports.DefaultFieldManager + "/Update"}) {
		t.Errorf("managers = %v, want an update by %s", got, ports.DefaultFieldManager)
	}
	assertData(t, mustGet(t, ctx, c, ports.RefOf(live)), map[string]string{"size": "1"})

	_, err = c.Create(ctx, configMap(t, f.Namespace, "web", `{"size":"2"}`), "")
	var ce *ports.CreateError
	if !errors.As(err, &ce) || !errors.Is(err, ports.ErrAlreadyExists) {
		t.Fatalf("second Create = %v, want a *ports.CreateError that is ErrAlreadyExists", err)
	}
	if want := `configmaps "web" already exists`; ce.Err.Error() != want {
		t.Errorf("server's words = %q, want %q", ce.Err.Error(), want)
	}
	after := mustGet(t, ctx, c, ports.RefOf(live))
	assertData(t, after, map[string]string{"size": "1"})
	if rv(after) != rv(live) {
		t.Errorf("a refused create changed the object: resourceVersion %s, was %s", rv(after), rv(live))
	}

	job := clusterObject(t, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"hook","namespace":%q},
		"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`, f.Namespace)
	mine, err := c.Create(ctx, job, "porttest-mine")
	if err != nil {
		t.Fatalf("Create Job: %v", err)
	}
	if got := ManagersOf(mine); !slices.Equal(got, []string{"porttest-mine/Update"}) {
		t.Errorf("managers = %v, want an update by porttest-mine", got)
	}
	if _, err = c.Create(ctx, job, ""); !errors.As(err, &ce) || ce.Err.Error() != `jobs.batch "hook" already exists` {
		t.Errorf("second Create of a Job = %v, want the server's jobs.batch \"hook\" already exists", err)
	}

	_, err = c.Create(ctx, configMap(t, f.Namespace+"-missing", "web", `{}`), "")
	if err == nil || errors.Is(err, ports.ErrAlreadyExists) {
		t.Errorf("Create into a missing namespace = %v, want a refusal other than already exists", err)
	}
}

// testClusterCreateDeleting: an object a finalizer holds after its delete
// still exists to a create, which the server says.
func testClusterCreateDeleting(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	o := deleteHeld(t, ctx, f)
	_, err := c.Create(ctx, configMap(t, f.Namespace, "held", `{}`), "")
	if !errors.Is(err, ports.ErrAlreadyExists) || !strings.HasSuffix(err.Error(), `object is being deleted: configmaps "held" already exists`) {
		t.Errorf("Create of an object being deleted = %v, want ErrAlreadyExists in the server's words", err)
	}
	live := mustGet(t, ctx, c, ports.RefOf(o))
	md := live["metadata"].(map[string]any)
	delete(md, "finalizers")
	delete(md, "managedFields")
	if _, err := others.UpdateAs(ctx, "porttest-controller", live); err != nil {
		t.Fatalf("remove the finalizer: %v", err)
	}
}

// testClusterReplace: a replace writes the object whole over the live one
// (Helm's --force): the same object (uid), fields it does not set dropped
// whoever set them, owned by its manager with an update; a Deployment's
// generation counts it even when only annotations change. A missing object
// is not found; a change the server refuses is an *ApplyError, invalid.
func testClusterReplace(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	live := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"kept":"a","dropped":"b"}`), ports.ApplyOptions{})
	out, err := c.Replace(ctx, configMap(t, f.Namespace, "web", `{"kept":"c"}`), "")
	if err != nil {
		t.Fatalf("Replace: %v", err)
	}
	assertData(t, mustGet(t, ctx, c, ports.RefOf(live)), map[string]string{"kept": "c"})
	if field(out, "metadata", "uid") != field(live, "metadata", "uid") || rv(out) == rv(live) {
		t.Errorf("replaced object uid %s rv %s, was uid %s rv %s: want the same object, written", field(out, "metadata", "uid"), rv(out), field(live, "metadata", "uid"), rv(live))
	}
	if got := ManagersOf(out); !slices.Contains(got, ports.DefaultFieldManager+"/Update") {
		t.Errorf("managers = %v, want an update by %s", got, ports.DefaultFieldManager)
	}

	deployment := func(annotations string) ports.Object {
		return clusterObject(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q,"annotations":%s},
			"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
			"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`, f.Namespace, annotations)
	}
	d := mustApply(t, ctx, c, deployment(`{"note":"a"}`), ports.ApplyOptions{})
	out, err = c.Replace(ctx, deployment(`{}`), "")
	if err != nil {
		t.Fatalf("Replace Deployment: %v", err)
	}
	if g := field(out, "metadata", "generation"); g == field(d, "metadata", "generation") {
		t.Errorf("generation %s after a replace that drops an annotation, want it counted", g)
	}

	if _, err := c.Replace(ctx, configMap(t, f.Namespace, "missing", `{}`), ""); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Errorf("Replace of a missing object = %v, want ErrObjectNotFound", err)
	}
	frozen := func(x string) ports.Object {
		return clusterObject(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen","namespace":%q},"immutable":true,"data":{"x":%q}}`, f.Namespace, x)
	}
	mustApply(t, ctx, c, frozen("1"), ports.ApplyOptions{})
	_, err = c.Replace(ctx, frozen("2"), "")
	var ae *ports.ApplyError
	if !errors.As(err, &ae) || !errors.Is(err, ports.ErrInvalid) {
		t.Errorf("Replace of an immutable change = %v, want an *ApplyError that is ErrInvalid", err)
	}
}
