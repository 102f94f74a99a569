package drift

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

func obj(t *testing.T, js string) ports.Object {
	t.Helper()
	var o ports.Object
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

const desiredDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod",
 "labels":{"app":"web","app.kubernetes.io/managed-by":"Helm"}},
 "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{"limits":{"cpu":"0.5"}},
 "ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`

// liveDeployment is the deployment after kubectl scale and kubectl set image,
// with server defaults, status and managedFields.
const liveDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod",
 "labels":{"app":"web","app.kubernetes.io/managed-by":"Helm"},
 "managedFields":[
  {"manager":"kubectl-chart","operation":"Apply","time":"2026-01-01T00:00:00Z","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{},"f:app.kubernetes.io/managed-by":{}}},
   "f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:name":{},"f:resources":{"f:limits":{"f:cpu":{}}},
   "f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}},
  {"manager":"kubectl-scale","operation":"Update","subresource":"scale","time":"2026-01-02T00:00:00Z","fieldsV1":{"f:spec":{"f:replicas":{}}}},
  {"manager":"kubectl-set","operation":"Update","time":"2026-01-03T00:00:00Z","fieldsV1":{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}}
 ]},
 "spec":{"replicas":5,"progressDeadlineSeconds":600,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28",
 "imagePullPolicy":"IfNotPresent","resources":{"limits":{"cpu":"500m"}},"ports":[{"containerPort":80,"protocol":"TCP"}]}]}}},
 "status":{"replicas":5}}`

func TestCompare(t *testing.T) {
	tests := map[string]struct {
		desired, live string
		want          []string
	}{
		"scaled and re-imaged, defaults and quantities are not drift": {
			desired: desiredDeployment, live: liveDeployment,
			want: []string{
				".spec.replicas: 2 -> 5 by kubectl-scale (Update) at 2026-01-02T00:00:00Z",
				".spec.template.spec.containers[name=web].image: nginx:1.27 -> nginx:1.28 by kubectl-set (Update) at 2026-01-03T00:00:00Z",
			},
		},
		"in sync": {
			desired: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`,
			live:    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"9"},"data":{"a":"1"}}`,
		},
		"label removed and value edited": {
			desired: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app.kubernetes.io/managed-by":"Helm"}},"data":{"a":"1","b":"2"}}`,
			live: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[
			 {"manager":"kubectl-edit","operation":"Update","time":"2026-02-02T00:00:00Z","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"9","b":"2"}}`,
			want: []string{
				".data.a: 1 -> 9 by kubectl-edit (Update) at 2026-02-02T00:00:00Z",
				".metadata.labels: map[app.kubernetes.io/managed-by:Helm] -> removed",
			},
		},
		"secret value": {
			desired: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"p":"YQ=="}}`,
			live:    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"p":"Yg=="}}`,
			want:    []string{".data.p: (secret) changed"},
		},
		"zero values the server leaves out": {
			desired: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"hostNetwork":false,"priority":0,"nodeName":"","tolerations":[],"containers":[{"name":"c","resources":{}}]}}`,
			live:    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}`,
		},
		"a zero value replaced is drift": {
			desired: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"hostNetwork":false}}`,
			live:    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"hostNetwork":true}}`,
			want:    []string{".spec.hostNetwork: false -> true"},
		},
		"stringData is stored in data": {
			desired: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"user":"admin"},"data":{"p":"YQ=="}}`,
			live:    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"user":"YWRtaW4=","p":"YQ=="}}`,
		},
		"stringData changed": {
			desired: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"user":"admin"}}`,
			live:    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"user":"cm9vdA=="}}`,
			want:    []string{".data.user: (secret) changed"},
		},
		"quantities written as numbers": {
			desired: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":1,"memory":"1Gi"},"requests":{"cpu":0.5}}}]}}`,
			live:    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m"}}}]}}`,
		},
		"the manager that names the field wins a tie": {
			desired: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"password":"YQ=="}}`,
			live: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","managedFields":[
			 {"manager":"helm","operation":"Update","time":"2026-01-01T00:00:00Z","fieldsV1":{"f:data":{}}},
			 {"manager":"kubectl-patch","operation":"Update","time":"2026-01-01T00:00:00Z","fieldsV1":{"f:data":{"f:password":{}}}}]},
			 "data":{"password":"Yg=="}}`,
			want: []string{".data.password: (secret) changed by kubectl-patch (Update) at 2026-01-01T00:00:00Z"},
		},
		"null sets nothing": {
			desired: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":null},"data":{"a":null}}`,
			live:    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
		},
		"atomic list owned whole": {
			desired: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","args":["a","b"]}]}}`,
			live: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[
			 {"manager":"mutator","operation":"Update","time":"t","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:args":{}}}}}}]},
			 "spec":{"containers":[{"name":"c","args":["a","c"]}]}}`,
			want: []string{".spec.containers[name=c].args: [a b] -> [a c] by mutator (Update) at t"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, f := range Compare(obj(t, tc.desired), obj(t, tc.live)) {
				line := fmt.Sprintf("%s: %v -> %v", f.Path, f.Want, f.Live)
				switch {
				case f.Secret:
					line = f.Path + ": (secret) changed"
				case f.Removed:
					line = fmt.Sprintf("%s: %v -> removed", f.Path, f.Want)
				}
				if f.Manager != "" {
					line += fmt.Sprintf(" by %s (%s) at %s", f.Manager, f.Operation, f.Time)
				}
				got = append(got, line)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("drift\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestMarkRelease(t *testing.T) {
	release := []string{"helm", "kubectl-chart"}
	tests := map[string]struct {
		field Field
		want  bool
	}{
		"the release's manager":           {field: Field{Manager: "helm", Operation: "Apply"}, want: true},
		"the release's client-side write": {field: Field{Manager: "helm", Operation: "Update"}, want: true},
		"our earlier manager":             {field: Field{Manager: "kubectl-chart", Operation: "Apply"}, want: true},
		"someone else":                    {field: Field{Manager: "kubectl-edit", Operation: "Update"}},
		"through a subresource":           {field: Field{Manager: "helm", Operation: "Update", Subresource: "scale"}},
		"no owner":                        {field: Field{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fields := []Field{tc.field}
			MarkRelease(fields, release)
			if fields[0].Release != tc.want {
				t.Errorf("Release = %v, want %v", fields[0].Release, tc.want)
			}
		})
	}
}
