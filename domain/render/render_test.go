package render_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

func TestRenderNotes(t *testing.T) {
	rootNotes := "Thank you for installing shop.\nYour release is named rel in shop-ns.\n"
	tests := map[string]struct {
		subNotes bool
		set      []string
		want     string
	}{
		"root notes only": {want: rootNotes},
		"subchart notes too, by template path": {
			subNotes: true,
			want:     "Cart notes for basket (large).\n\nCart notes for cart (small).\n\n" + rootNotes,
		},
		"notes of disabled subcharts are gone": {
			subNotes: true, set: []string{"cart.enabled=false"},
			want: "Cart notes for basket (large).\n\n" + rootNotes,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := shopRequest(t, tc.set...)
			req.SubNotes = tc.subNotes
			r, err := render.Chart(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Notes != tc.want {
				t.Errorf("Notes = %q\nwant    %q", r.Notes, tc.want)
			}
			for _, m := range r.Manifests {
				if strings.HasSuffix(m.Name, "NOTES.txt") {
					t.Errorf("NOTES file %s among the manifests", m.Name)
				}
			}
			if strings.Contains(r.Manifest, "NOTES.txt") {
				t.Error("NOTES in the manifest text")
			}
		})
	}
}

func TestRenderChartAndValues(t *testing.T) {
	req, _ := shopRequest(t)
	r, err := render.Chart(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// Dependencies were processed on the chart itself: the alias is a second copy
	// of cart, the disabled subchart and its dependency entry are gone.
	var deps []string
	for _, d := range req.Chart.Dependencies() {
		deps = append(deps, d.Name())
	}
	if want := []string{"cart", "basket", "lib"}; !reflect.DeepEqual(deps, want) {
		t.Errorf("subcharts after Render = %v, want %v", deps, want)
	}
	var entries []string
	for _, d := range req.Chart.Metadata.Dependencies {
		entries = append(entries, d.Name)
	}
	if want := []string{"cart", "basket", "lib"}; !reflect.DeepEqual(entries, want) {
		t.Errorf("dependency entries after Render = %v, want %v", entries, want)
	}

	checks := map[string]any{
		"replicas":          float64(2),
		"basket.size":       "large",
		"cart.size":         "small",
		"basket.global.env": "prod",
		"legacy.enabled":    false,
	}
	for p, want := range checks {
		if got, err := r.Values.PathValue(p); err != nil || got != want {
			t.Errorf("Values %s = %v (%v), want %v", p, got, err, want)
		}
	}

	var kinds []string
	for _, m := range r.Manifests {
		kinds = append(kinds, m.Head.Kind+"/"+m.Head.Metadata.Name)
	}
	wantKinds := []string{"ServiceAccount/rel-shop", "Secret/rel-shop", "ConfigMap/rel-shop", "Service/rel-basket", "Service/rel-cart", "Service/rel-shop", "Deployment/rel-shop", "Widget/rel-shop"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("manifests = %v\nwant        %v", kinds, wantKinds)
	}

	type hook struct {
		Name     string
		Events   []release.HookEvent
		Weight   int
		Policies []release.HookDeletePolicy
		Test     bool
	}
	var hooks []hook
	for _, h := range r.Hooks {
		hooks = append(hooks, hook{h.Name, h.Events, h.Weight, h.DeletePolicies, h.IsTest()})
	}
	wantHooks := []hook{
		{"rel-post", []release.HookEvent{release.HookPostInstall}, -1, []release.HookDeletePolicy{}, false},
		{"rel-test-connection", []release.HookEvent{release.HookTest}, 0, []release.HookDeletePolicy{}, true},
		{"rel-test-legacy", []release.HookEvent{release.HookTest}, 0, []release.HookDeletePolicy{}, true},
		{"rel-migrate", []release.HookEvent{release.HookPreInstall, release.HookPreUpgrade}, 5, []release.HookDeletePolicy{release.HookBeforeHookCreation, release.HookSucceeded}, false},
	}
	if !reflect.DeepEqual(hooks, wantHooks) {
		t.Errorf("hooks =\n%+v\nwant\n%+v", hooks, wantHooks)
	}
}

func TestRenderIncludeCRDs(t *testing.T) {
	tests := map[string]struct {
		include bool
		set     []string
		want    []string
	}{
		"root first, then subcharts in order; disabled subchart's left out": {
			include: true,
			want:    []string{"shop/crds/widgets.yaml", "shop/charts/cart/crds/carts.yaml", "shop/charts/basket/crds/carts.yaml"},
		},
		"enabled legacy brings its CRD": {
			include: true, set: []string{"legacy.enabled=true"},
			want: []string{"shop/crds/widgets.yaml", "shop/charts/cart/crds/carts.yaml", "shop/charts/basket/crds/carts.yaml", "shop/charts/legacy/crds/legacy.yaml"},
		},
		"not asked for": {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := shopRequest(t, tc.set...)
			req.IncludeCRDs = tc.include
			r, err := render.Chart(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var crdSources []string
			for _, doc := range strings.Split(r.Manifest, "---\n") {
				if strings.Contains(doc, "kind: CustomResourceDefinition") {
					src := strings.TrimPrefix(strings.SplitN(doc, "\n", 2)[0], "# Source: ")
					crdSources = append(crdSources, src)
				}
			}
			if strings.Join(crdSources, ",") != strings.Join(tc.want, ",") {
				t.Errorf("CRDs = %v, want %v", crdSources, tc.want)
			}
			if tc.include && !strings.HasPrefix(r.Manifest, "---\n# Source: shop/crds/widgets.yaml\n") {
				t.Errorf("CRDs do not lead the manifest:\n%.200s", r.Manifest)
			}
			for _, m := range r.Manifests {
				if m.Head.Kind == "CustomResourceDefinition" {
					t.Errorf("CRD %s among the templates' manifests", m.Name)
				}
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	simple := func(kubeVersion string, templates ...*chart.File) *chart.Chart {
		return &chart.Chart{
			Metadata:  &chart.Metadata{APIVersion: "v2", Name: "c", Version: "0.1.0", KubeVersion: kubeVersion},
			Templates: templates,
		}
	}
	file := func(name, data string) *chart.File { return &chart.File{Name: name, Data: []byte(data)} }
	invalidName := `invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53`

	tests := map[string]struct {
		chart       *chart.Chart
		release     string
		kube        string
		vals        map[string]any
		wantErr     string
		renderErr   bool
		wantPartial string
	}{
		"invalid release name": {
			chart: simple(""), release: "Bad_Name",
			wantErr: `release name "Bad_Name": ` + invalidName,
		},
		"release name too long": {
			chart: simple(""), release: strings.Repeat("a", 54),
			wantErr: `release name "` + strings.Repeat("a", 54) + `": ` + invalidName,
		},
		"no release name": {
			chart: simple(""), release: "",
			wantErr: `release name "": no name provided`,
		},
		"incompatible Kubernetes version": {
			release: "rel", chart: simple(">=1.30.0-0", file("templates/t.yaml", "kind: ConfigMap\n")), kube: "1.29.0",
			wantErr: "chart requires kubeVersion: >=1.30.0-0 which is incompatible with Kubernetes v1.29.0", renderErr: true,
		},
		"kubeVersion that is not a range": {
			release: "rel", chart: simple("not a range"), kube: "1.29.0",
			wantErr: "chart requires kubeVersion: not a range which is incompatible with Kubernetes v1.29.0", renderErr: true,
		},
		"template failure": {
			release: "rel",
			chart:   simple("", file("templates/t.yaml", `{{ required "need x" .Values.x }}`)),
			wantErr: "execution error at (c/templates/t.yaml:1:3): need x", renderErr: true,
		},
		"document that is not an object": {
			release:   "rel",
			chart:     simple("", file("templates/ok.yaml", "kind: ConfigMap\n"), file("templates/t.yaml", "a: 1\n---\nbroken\n"), file("templates/blank.yaml", "  \n")),
			wantErr:   "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type releaseutil.SimpleHead",
			renderErr: true,
			// Everything rendered, as it came out, for --debug.
			wantPartial: "---\n# Source: c/templates/ok.yaml\nkind: ConfigMap\n\n---\n# Source: c/templates/t.yaml\na: 1\n---\nbroken\n\n",
		},
		"subchart values that are not a table": {
			release: "rel",
			chart: func() *chart.Chart {
				c := simple("")
				c.AddDependency(simple(""))
				c.Dependencies()[0].Metadata.Name = "sub"
				return c
			}(),
			vals:    map[string]any{"sub": "oops"},
			wantErr: "type mismatch on sub: %!t(string=oops)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			kube := tc.kube
			if kube == "" {
				kube = "1.29.0"
			}
			r, err := render.Chart(context.Background(), render.Request{
				Chart: tc.chart, Values: tc.vals, ReleaseName: tc.release, Namespace: "default", Revision: 1,
				Capabilities: caps(t, kube), SkipSchemaValidation: true, Dialect: dialect.Helm3,
			})
			if err == nil {
				t.Fatalf("Render = %+v, want an error", r)
			}
			if r != nil {
				t.Errorf("Render returned a result with its error: %+v", r)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
			var rerr *render.Error
			if got := errors.As(err, &rerr); got != tc.renderErr {
				t.Fatalf("errors.As(render.Error) = %v, want %v", got, tc.renderErr)
			}
			if rerr != nil && errors.Unwrap(rerr) == nil {
				t.Error("render.Error does not unwrap")
			}
			switch {
			case tc.wantPartial != "":
				if rerr.Partial == nil || rerr.Partial.Manifest != tc.wantPartial {
					t.Errorf("partial manifest = %+v, want %q", rerr.Partial, tc.wantPartial)
				}
			case rerr != nil && rerr.Partial != nil:
				t.Errorf("unexpected partial result %+v", rerr.Partial)
			}
		})
	}
}

func TestRenderValuesObject(t *testing.T) {
	ch := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "test", Version: "0.1.0"},
		Values:   map[string]any{"name": "al Rashid", "where": map[string]any{"city": "Basrah", "title": "caliph"}},
		Files:    []*chart.File{{Name: "scheherazade/shahryar.txt", Data: []byte("1,001 Nights")}},
	}
	ch.AddDependency(&chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "where", Version: "0.1.0"}})
	user := map[string]any{"name": "Haroun", "where": map[string]any{"city": "Baghdad", "date": "809 CE"}}
	c := caps(t, "1.29.0")

	top, err := render.Values(t.Context(), ch, user, render.ReleaseOptions{Name: "Seven Voyages", Namespace: "default", Revision: 1, IsInstall: true}, c, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if top["Chart"] != ch.Metadata || !reflect.DeepEqual(top["Capabilities"], c.ForTemplates(dialect.Helm3)) {
		t.Errorf("Chart/Capabilities = %v / %v", top["Chart"], top["Capabilities"])
	}
	wantRelease := map[string]any{"Name": "Seven Voyages", "Namespace": "default", "Revision": 1, "IsUpgrade": false, "IsInstall": true, "Service": "Helm"}
	if !reflect.DeepEqual(top["Release"], wantRelease) {
		t.Errorf("Release = %v, want %v", top["Release"], wantRelease)
	}
	vals, ok := top["Values"].(values.Values)
	if !ok {
		t.Fatalf("Values is %T", top["Values"])
	}
	wantWhere := map[string]any{"city": "Baghdad", "date": "809 CE", "title": "caliph", "global": map[string]any{}}
	if vals["name"] != "Haroun" || !reflect.DeepEqual(vals["where"], wantWhere) {
		t.Errorf("Values = %v", vals)
	}
	if user["where"].(map[string]any)["title"] != nil {
		t.Error("RenderValues changed the user's values")
	}
}

// A render with no dialect chosen is refused, never done as Helm 3's.
func TestRenderRefusesAnUnsetDialect(t *testing.T) {
	req, _ := shopRequest(t)
	req.Dialect = dialect.Unset
	if _, err := render.Chart(context.Background(), req); !errors.Is(err, dialect.ErrUnset) {
		t.Fatalf("render error = %v, want dialect.ErrUnset", err)
	}
}
