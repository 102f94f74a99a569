package manifest_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Error texts in these tests are Helm v3.22's for the same templates.

// helmSortInput is the template set of Helm's manifest sorter test.
func helmSortInput() map[string]string {
	return map[string]string{
		"one": `apiVersion: v1
kind: Job
metadata:
  name: first
  labels:
    doesnot: matter
  annotations:
    "helm.sh/hook": pre-install
`,
		"two": `kind: ReplicaSet
apiVersion: v1beta1
metadata:
  name: second
  annotations:
    "helm.sh/hook": post-install
`,
		"three": `kind: ReplicaSet
apiVersion: v1beta1
metadata:
  name: third
  annotations:
    "helm.sh/hook": no-such-hook
`,
		"four": `kind: Pod
apiVersion: v1
metadata:
  name: fourth
  annotations:
    nothing: here`,
		"five": `kind: ReplicaSet
apiVersion: v1beta1
metadata:
  name: fifth
  annotations:
    "helm.sh/hook": post-delete, post-install
`,
		// Partials are skipped even when they are not valid manifests.
		"six/_six": `invalid manifest`,
		// So are empty templates.
		"seven": "",
		"eight": `kind: ConfigMap
apiVersion: v1
metadata:
  name: eighth
data:
  name: value
---
apiVersion: v1
kind: Pod
metadata:
  name: example-test
  annotations:
    "helm.sh/hook": test
`,
	}
}

func TestSortHelmExample(t *testing.T) {
	var skipped []string
	hooks, generic, err := manifest.Sort(helmSortInput(), manifest.InstallOrder, func(format string, args ...any) {
		skipped = append(skipped, fmt.Sprintf(format, args...))
	})
	if err != nil {
		t.Fatal(err)
	}
	type hookSummary struct {
		Name, Kind, Path string
		Events           []release.HookEvent
	}
	var gotHooks []hookSummary
	for _, h := range hooks {
		gotHooks = append(gotHooks, hookSummary{h.Name, h.Kind, h.Path, h.Events})
	}
	// Kind order first (Pod < ReplicaSet < Job), then file path order.
	wantHooks := []hookSummary{
		{"example-test", "Pod", "eight", []release.HookEvent{release.HookTest}},
		{"fifth", "ReplicaSet", "five", []release.HookEvent{release.HookPostDelete, release.HookPostInstall}},
		{"second", "ReplicaSet", "two", []release.HookEvent{release.HookPostInstall}},
		{"first", "Job", "one", []release.HookEvent{release.HookPreInstall}},
	}
	if !reflect.DeepEqual(gotHooks, wantHooks) {
		t.Errorf("hooks =\n%+v\nwant\n%+v", gotHooks, wantHooks)
	}
	var gotGeneric []string
	for _, m := range generic {
		gotGeneric = append(gotGeneric, m.Name+":"+m.Head.Kind+":"+m.Head.Metadata.Name)
	}
	if want := []string{"eight:ConfigMap:eighth", "four:Pod:fourth"}; !reflect.DeepEqual(gotGeneric, want) {
		t.Errorf("manifests = %v, want %v", gotGeneric, want)
	}
	if want := []string{`info: skipping unknown hook: "no-such-hook"`}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped = %q, want %q", skipped, want)
	}
	if got, want := generic[0].Content, "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: eighth\ndata:\n  name: value"; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
}

func TestSortHookFields(t *testing.T) {
	doc := func(annotations string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: h\n  annotations:\n" + annotations
	}
	tests := map[string]struct {
		doc  string
		want *release.Hook // nil: not a hook
		skip bool          // skipped as unknown
	}{
		"weight and policies": {
			doc: doc("    helm.sh/hook: pre-install,pre-upgrade\n    helm.sh/hook-weight: \"-5\"\n    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded\n    helm.sh/hook-output-log-policy: hook-failed\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookPreInstall, release.HookPreUpgrade},
				Weight:            -5,
				DeletePolicies:    []release.HookDeletePolicy{release.HookBeforeHookCreation, release.HookSucceeded},
				OutputLogPolicies: []release.HookOutputLogPolicy{release.HookOutputOnFailed},
			},
		},
		"events and policies are trimmed and lowercased": {
			doc: doc("    helm.sh/hook: \" Pre-Install , POST-UPGRADE \"\n    helm.sh/hook-delete-policy: \" Hook-Succeeded ,Hook-Failed\"\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookPreInstall, release.HookPostUpgrade},
				DeletePolicies:    []release.HookDeletePolicy{release.HookSucceeded, release.HookFailed},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"every event": {
			doc: doc("    helm.sh/hook: pre-install,post-install,pre-delete,post-delete,pre-upgrade,post-upgrade,pre-rollback,post-rollback,test\n"),
			want: &release.Hook{
				Events: []release.HookEvent{
					release.HookPreInstall, release.HookPostInstall, release.HookPreDelete, release.HookPostDelete,
					release.HookPreUpgrade, release.HookPostUpgrade, release.HookPreRollback, release.HookPostRollback, release.HookTest,
				},
				DeletePolicies:    []release.HookDeletePolicy{},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"test-success is the Helm 2 name of test": {
			doc: doc("    helm.sh/hook: test-success\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookTest},
				DeletePolicies:    []release.HookDeletePolicy{},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"weight that is not a number counts as 0": {
			doc: doc("    helm.sh/hook: post-install\n    helm.sh/hook-weight: heavy\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookPostInstall},
				DeletePolicies:    []release.HookDeletePolicy{},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"positive weight with a sign": {
			doc: doc("    helm.sh/hook: post-install\n    helm.sh/hook-weight: \"+3\"\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookPostInstall},
				Weight:            3,
				DeletePolicies:    []release.HookDeletePolicy{},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"empty delete policy": {
			doc: doc("    helm.sh/hook: post-install\n    helm.sh/hook-delete-policy: \"\"\n"),
			want: &release.Hook{
				Events:            []release.HookEvent{release.HookPostInstall},
				DeletePolicies:    []release.HookDeletePolicy{""},
				OutputLogPolicies: []release.HookOutputLogPolicy{},
			},
		},
		"one unknown event drops the whole hook": {
			doc:  doc("    helm.sh/hook: pre-install,bogus\n"),
			skip: true,
		},
		"empty hook annotation": {
			doc:  doc("    helm.sh/hook: \"\"\n"),
			skip: true,
		},
		"other annotations only": {
			doc: doc("    helm.sh/hook-weight: \"1\"\n"),
		},
		"no metadata": {
			doc: "apiVersion: v1\nkind: ConfigMap\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var skipped []string
			hooks, generic, err := manifest.Sort(map[string]string{"chart/templates/t.yaml": tc.doc}, manifest.InstallOrder,
				func(format string, args ...any) { skipped = append(skipped, fmt.Sprintf(format, args...)) })
			if err != nil {
				t.Fatal(err)
			}
			if tc.skip {
				if len(hooks) != 0 || len(generic) != 0 || len(skipped) != 1 || !strings.HasPrefix(skipped[0], "info: skipping unknown hook: ") {
					t.Errorf("hooks %v, manifests %v, skipped %q; want only a skip report", hooks, generic, skipped)
				}
				return
			}
			if tc.want == nil {
				if len(hooks) != 0 || len(generic) != 1 || generic[0].Content != strings.TrimSpace(tc.doc) {
					t.Errorf("hooks %v, manifests %v; want the document as a manifest", hooks, generic)
				}
				return
			}
			if len(hooks) != 1 || len(generic) != 0 {
				t.Fatalf("hooks %v, manifests %v; want one hook", hooks, generic)
			}
			want := *tc.want
			want.Name, want.Kind, want.Path, want.Manifest = "h", "Job", "chart/templates/t.yaml", strings.TrimSpace(tc.doc)
			if !reflect.DeepEqual(hooks[0], &want) {
				t.Errorf("hook =\n%+v\nwant\n%+v", hooks[0], &want)
			}
			if want.IsTest() != hooks[0].IsTest() {
				t.Errorf("IsTest() = %v", hooks[0].IsTest())
			}
		})
	}
}

func TestSortOrder(t *testing.T) {
	files := map[string]string{
		"c/templates/b.yaml":            "kind: Service\nmetadata:\n  name: svc-b\n---\nkind: Deployment\nmetadata:\n  name: dep-b\n---\nkind: Zebra\nmetadata:\n  name: z\n",
		"c/templates/a.yaml":            "kind: Deployment\nmetadata:\n  name: dep-a\n---\nkind: Namespace\nmetadata:\n  name: ns\n---\nkind: Aardvark\nmetadata:\n  name: aa\n---\nkind: Service\nmetadata:\n  name: svc-a\n",
		"c/charts/sub/templates/x.yaml": "kind: Service\nmetadata:\n  name: svc-sub\n---\nkind: Zebra\nmetadata:\n  name: z-sub\n",
		"c/templates/hooks.yaml": "kind: Job\nmetadata:\n  name: job-late\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: \"10\"\n---\n" +
			"kind: ConfigMap\nmetadata:\n  name: cm-early\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: \"-10\"\n---\n" +
			"kind: Job\nmetadata:\n  name: job-early\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: \"-1\"\n",
		"c/templates/NOTES.txt": "   \n",
	}
	tests := map[string]struct {
		order     manifest.KindOrder
		wantNames []string
		wantHooks []string
	}{
		// Known kinds in the order's rank, unknown ones after them by name; equal
		// kinds keep file path order, then document order. Hook weights do not
		// take part: hooks are ordered by kind only.
		"install": {
			order:     manifest.InstallOrder,
			wantNames: []string{"ns", "svc-sub", "svc-a", "svc-b", "dep-a", "dep-b", "aa", "z-sub", "z"},
			wantHooks: []string{"cm-early", "job-late", "job-early"},
		},
		"uninstall": {
			order:     manifest.UninstallOrder,
			wantNames: []string{"svc-sub", "svc-a", "svc-b", "dep-a", "dep-b", "ns", "aa", "z-sub", "z"},
			wantHooks: []string{"job-late", "job-early", "cm-early"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range 10 {
				hooks, generic, err := manifest.Sort(files, tc.order, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names, hookNames []string
				for _, m := range generic {
					names = append(names, m.Head.Metadata.Name)
				}
				for _, h := range hooks {
					hookNames = append(hookNames, h.Name)
				}
				if !reflect.DeepEqual(names, tc.wantNames) {
					t.Fatalf("run %d: manifests = %v, want %v", i, names, tc.wantNames)
				}
				if !reflect.DeepEqual(hookNames, tc.wantHooks) {
					t.Fatalf("run %d: hooks = %v, want %v", i, hookNames, tc.wantHooks)
				}
			}
		})
	}
}

func TestSortParseErrors(t *testing.T) {
	tests := map[string]struct {
		files        map[string]string
		wantErr      string
		wantTemplate string
		wantGeneric  int
	}{
		"scalar document": {
			files:        map[string]string{"c/templates/t.yaml": "just a string"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type releaseutil.SimpleHead",
			wantTemplate: "c/templates/t.yaml",
		},
		"list document": {
			files:        map[string]string{"c/templates/t.yaml": "- a\n- b\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type releaseutil.SimpleHead",
			wantTemplate: "c/templates/t.yaml",
		},
		"kind of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "kind: [a]\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field SimpleHead.kind of type string",
			wantTemplate: "c/templates/t.yaml",
		},
		"apiVersion of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "apiVersion: {a: 1}\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go struct field SimpleHead.apiVersion of type string",
			wantTemplate: "c/templates/t.yaml",
		},
		"metadata of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "metadata: [1]\n"},
			wantErr:      `YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field SimpleHead.metadata of type struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" }`,
			wantTemplate: "c/templates/t.yaml",
		},
		"name of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "metadata:\n  name: [x]\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field .metadata.name of type string",
			wantTemplate: "c/templates/t.yaml",
		},
		"annotations of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "metadata:\n  annotations: [x]\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field .metadata.annotations of type map[string]string",
			wantTemplate: "c/templates/t.yaml",
		},
		"annotation value of the wrong type": {
			files:        map[string]string{"c/templates/t.yaml": "metadata:\n  annotations:\n    a: [1]\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field .metadata.annotations of type string",
			wantTemplate: "c/templates/t.yaml",
		},
		"malformed YAML": {
			files:        map[string]string{"c/templates/t.yaml": "kind: [a\n"},
			wantErr:      "YAML parse error on c/templates/t.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
			wantTemplate: "c/templates/t.yaml",
		},
		"first bad template in path order, after the good ones": {
			files: map[string]string{
				"c/templates/a.yaml": "kind: ConfigMap\nmetadata:\n  name: a\n",
				"c/templates/b.yaml": "kind: ConfigMap\nmetadata:\n  name: b\n---\nbroken",
				"c/templates/c.yaml": "also broken",
			},
			wantErr:      "YAML parse error on c/templates/b.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type releaseutil.SimpleHead",
			wantTemplate: "c/templates/b.yaml",
			wantGeneric:  2,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, generic, err := manifest.Sort(tc.files, manifest.InstallOrder, nil)
			if err == nil {
				t.Fatal("Sort succeeded, want a parse error")
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
			var perr *manifest.ParseError
			if !errors.As(err, &perr) || perr.Template != tc.wantTemplate || errors.Unwrap(err) == nil {
				t.Errorf("error %#v is not a ParseError for %s", err, tc.wantTemplate)
			}
			if len(generic) != tc.wantGeneric {
				t.Errorf("%d manifests sorted before the error, want %d", len(generic), tc.wantGeneric)
			}
		})
	}
}
