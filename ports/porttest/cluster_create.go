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
	o := configMap(t, f.Namespace, "held", `{}`)
	o["metadata"].(map[string]any)["finalizers"] = []any{"porttest.kubectl-chart.dev/hold"}
	mustApply(t, ctx, c, o, ports.ApplyOptions{})
	if err := c.Delete(ctx, ports.RefOf(o), ports.PropagationBackground); err != nil {
		t.Fatal(err)
	}
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
