package kube

import (
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestConflictManager(t *testing.T) {
	tests := map[string]struct {
		message string
		manager string
		ok      bool
	}{
		"update manager":          {message: `conflict with "helm" using v1`, manager: "helm", ok: true},
		"update manager and time": {message: `conflict with "helm" using apps/v1 at 2024-05-06T07:08:09Z`, manager: "helm", ok: true},
		"apply manager":           {message: `conflict with "kubectl-edit"`, manager: "kubectl-edit", ok: true},
		"subresource":             {message: `conflict with "kube-controller-manager" with subresource "scale" using autoscaling/v1`, manager: "kube-controller-manager", ok: true},
		"escaped quote":           {message: `conflict with "a \"b\" c" using v1`, manager: `a "b" c`, ok: true},
		"manager named using":     {message: `conflict with "x using y" using v1`, manager: "x using y", ok: true},
		"empty manager":           {message: `conflict with ""`, manager: "", ok: true},
		"whole-error plural":      {message: `conflicts with "helm" using v1:`},
		"unquoted":                {message: `conflict with helm using v1`},
		"backquoted":              {message: "conflict with `helm` using v1"},
		"unterminated":            {message: `conflict with "helm using v1`},
		"junk after the quote":    {message: `conflict with "helm"x`},
		"whole-error message":     {message: `Apply failed with 1 conflict: conflict with "helm" using v1: .data.a`},
		"empty":                   {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			manager, ok := conflictManager(tc.message)
			if manager != tc.manager || ok != tc.ok {
				t.Errorf("conflictManager(%q) = %q, %v, want %q, %v", tc.message, manager, ok, tc.manager, tc.ok)
			}
		})
	}
}

func conflictCause(message, field string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict, Message: message, Field: field}
}

func TestApplyError(t *testing.T) {
	ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm"}
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := map[string]struct {
		err    error
		forced bool
		// conflicts are the conflicts of a *ports.ConflictError, nil for none.
		conflicts []ports.FieldConflict
		invalid   bool
		// text is in the message; hint says whether the --force-conflicts hint is.
		text string
		hint bool
	}{
		"two conflicts with one manager": {
			err: apierrors.NewApplyConflict([]metav1.StatusCause{
				conflictCause(`conflict with "helm" using v1`, ".data.a"),
				conflictCause(`conflict with "helm" using v1`, ".data.b"),
			}, "Apply failed with 2 conflicts: conflicts with \"helm\" using v1:\n- .data.a\n- .data.b"),
			conflicts: []ports.FieldConflict{{Manager: "helm", Field: ".data.a"}, {Manager: "helm", Field: ".data.b"}},
			text:      "Apply failed with 2 conflicts", hint: true,
		},
		"conflicts with two managers": {
			err: apierrors.NewApplyConflict([]metav1.StatusCause{
				conflictCause(`conflict with "helm" using v1`, ".data.a"),
				conflictCause(`conflict with "kubectl-edit"`, ".data.b"),
			}, "Apply failed with 2 conflicts: conflicts with \"helm\" using v1:\n- .data.a\nconflicts with \"kubectl-edit\":\n- .data.b"),
			conflicts: []ports.FieldConflict{{Manager: "helm", Field: ".data.a"}, {Manager: "kubectl-edit", Field: ".data.b"}},
			text:      `conflicts with "kubectl-edit"`, hint: true,
		},
		"a cause of another type is not a conflict": {
			err: apierrors.NewApplyConflict([]metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueInvalid, Message: `conflict with "x"`, Field: ".data.c"},
				conflictCause(`conflict with "helm" using v1`, ".data.a"),
			}, `Apply failed with 1 conflict: conflict with "helm" using v1: .data.a`),
			conflicts: []ports.FieldConflict{{Manager: "helm", Field: ".data.a"}},
			text:      `conflict with "helm"`, hint: true,
		},
		"a cause message of unknown shape": {
			err:       apierrors.NewApplyConflict([]metav1.StatusCause{conflictCause(`owned by "helm"`, ".data.a")}, "Apply failed with 1 conflict"),
			conflicts: []ports.FieldConflict{{Manager: "", Field: ".data.a"}},
			text:      "Apply failed with 1 conflict", hint: true,
		},
		"forced": {
			err:       apierrors.NewApplyConflict([]metav1.StatusCause{conflictCause(`conflict with "helm" using v1`, ".data.a")}, "Apply failed with 1 conflict"),
			forced:    true,
			conflicts: []ports.FieldConflict{{Manager: "helm", Field: ".data.a"}},
			text:      "Apply failed with 1 conflict",
		},
		"a conflict without field managers": {
			err:  apierrors.NewConflict(gr, "cm", errors.New("the object has been modified")),
			text: "the object has been modified",
		},
		"invalid": {
			err: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web",
				field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), "x", "field is immutable")}),
			invalid: true,
			text:    `Deployment.apps "web" is invalid: spec.selector: Invalid value: "x": field is immutable`,
		},
		"forbidden": {
			err:  apierrors.NewForbidden(gr, "cm", errors.New("no")),
			text: "forbidden",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := applyError(ref, tc.err, tc.forced)
			msg := err.Error()
			if !strings.HasPrefix(msg, "apply "+ref.String()+": ") || !strings.Contains(msg, tc.text) {
				t.Errorf("message %q does not name the object and say %q", msg, tc.text)
			}
			if hint := strings.HasSuffix(msg, " (use --force-conflicts to take these fields over)"); hint != tc.hint {
				t.Errorf("hint = %v, want %v: %q", hint, tc.hint, msg)
			}
			var ce *ports.ConflictError
			switch {
			case !errors.As(err, &ce):
				if tc.conflicts != nil {
					t.Errorf("not a *ports.ConflictError: %v", err)
				}
			case !slices.Equal(ce.Conflicts, tc.conflicts) || ce.Ref != ref:
				t.Errorf("conflicts of %s = %+v, want %+v", ce.Ref, ce.Conflicts, tc.conflicts)
			}
			if got := errors.Is(err, ports.ErrInvalid); got != tc.invalid {
				t.Errorf("errors.Is(ErrInvalid) = %v, want %v", got, tc.invalid)
			}
			// The server's error stays reachable.
			if reason := apierrors.ReasonForError(err); reason != apierrors.ReasonForError(tc.err) {
				t.Errorf("reason = %q, want %q", reason, apierrors.ReasonForError(tc.err))
			}
		})
	}
}

func TestTakesOver(t *testing.T) {
	tests := map[string]struct {
		managers []string
		from     []string
		want     bool
	}{
		"helm alone":              {managers: []string{"helm", "helm"}, from: []string{"helm"}, want: true},
		"helm and kubectl-edit":   {managers: []string{"helm", "kubectl-edit"}, from: []string{"helm"}},
		"kubectl-edit alone":      {managers: []string{"kubectl-edit"}, from: []string{"helm"}},
		"nothing to take over":    {managers: []string{"helm"}},
		"unknown manager":         {managers: []string{""}, from: []string{"helm"}},
		"several take-over names": {managers: []string{"b", "a"}, from: []string{"a", "b"}, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ce := &ports.ConflictError{}
			for _, m := range tc.managers {
				ce.Conflicts = append(ce.Conflicts, ports.FieldConflict{Manager: m, Field: ".x"})
			}
			if got := takesOver(ce, tc.from); got != tc.want {
				t.Errorf("takesOver(%v, %v) = %v, want %v", tc.managers, tc.from, got, tc.want)
			}
		})
	}
}

// The conflicts that the API server's own field manager reports, for an
// object another manager wrote with an update (Helm 3) or an apply.
func TestConflictsOfTheFieldManager(t *testing.T) {
	const written = `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, labels: {app: a}}, data: {a: "1", b: "2", c: "3"}}`
	tests := map[string]struct {
		// update writes written with an update, else with an apply.
		update bool
		ours   string
		want   []ports.FieldConflict
	}{
		"one field of an update": {
			update: true, ours: `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: "9"}}`,
			want: []ports.FieldConflict{{Manager: "other", Field: ".data.a"}},
		},
		"three fields of an update": {
			update: true, ours: `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, labels: {app: b}}, data: {a: "9", b: "8"}}`,
			want: []ports.FieldConflict{{Manager: "other", Field: ".data.a"}, {Manager: "other", Field: ".data.b"}, {Manager: "other", Field: ".metadata.labels.app"}},
		},
		"two fields of an apply": {
			ours: `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: "9", c: "7"}}`,
			want: []ports.FieldConflict{{Manager: "other", Field: ".data.a"}, {Manager: "other", Field: ".data.c"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fm := managedfieldstest.NewTestFieldManager(managedfields.NewDeducedTypeConverter(), schema.FromAPIVersionAndKind("v1", "ConfigMap"))
			var err error
			if tc.update {
				err = fm.Update(unstructuredOf(t, written), "other")
			} else {
				err = fm.Apply(unstructuredOf(t, written), "other", false)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = fm.Apply(unstructuredOf(t, tc.ours), ports.DefaultFieldManager, false)
			ce := conflictError(ports.ObjectRef{Kind: "ConfigMap", Name: "cm"}, err)
			if ce == nil {
				t.Fatalf("no conflicts read from %v", err)
			}
			got := slices.Clone(ce.Conflicts)
			slices.SortFunc(got, func(a, b ports.FieldConflict) int { return strings.Compare(a.Field, b.Field) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("conflicts = %+v, want %+v\n(error: %v)", got, tc.want, err)
			}
			t.Logf("server error: %v", err)
			if !takesOver(ce, []string{"other"}) || takesOver(ce, []string{"helm"}) {
				t.Errorf("take-over of %v wrong", ce.Managers())
			}
		})
	}
}

func unstructuredOf(t *testing.T, text string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(text), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}
