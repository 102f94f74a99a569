//go:build e2e

package lifecycle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// The field managers kubectl writes with (kubectl v1.32, checked against this
// control plane): `kubectl scale` sets no manager of its own, so the server
// names it after the user agent, "kubectl", and records the scale
// subresource; the others have --field-manager defaults.
const (
	managerScale = "kubectl" // through the scale subresource
	managerLabel = "kubectl-label"
	managerEdit  = "kubectl-edit"
	managerPatch = "kubectl-patch"
	managerSet   = "kubectl-set"
	// managerHPA stands for an autoscaler writing replicas through the scale
	// subresource.
	managerHPA = "horizontal-pod-autoscaler"
)

// driftPassword is the chart's Secret value; driftLeaked the one written out
// of band. Neither may be printed without --show-secrets.
const (
	driftPassword = "s3cret-pw"
	driftLeaked   = "leaked-pw"
)

// driftChartFiles: Deployment web sets replicas 2, a label and an env value;
// Deployment scaled sets no replicas (an autoscaler's); ConfigMap settings has
// two keys; Secret creds a password; Service web a port.
var driftChartFiles = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: drifty\nversion: 0.1.0\n",
	"values.yaml": "replicas: 2\ngreeting: hello\ntier: one\nmode: fast\npassword: " + driftPassword + "\n",
	"templates/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    tier: {{ .Values.tier | quote }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          ports:
            - containerPort: 8080
          env:
            - name: GREETING
              value: {{ .Values.greeting | quote }}
`,
	"templates/scaled.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: scaled
spec:
  selector:
    matchLabels: {app: scaled}
  template:
    metadata:
      labels: {app: scaled}
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests: {cpu: 100m, memory: 64Mi}
`,
	"templates/settings.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: {{ .Values.mode | quote }}
  level: "3"
`,
	"templates/creds.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
data:
  password: {{ .Values.password | b64enc | quote }}
`,
	"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
    - port: 80
      targetPort: 8080
`,
}

// writeChart writes files into a new directory.
func writeChart(t *testing.T, files ...map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, fs := range files {
		for name, body := range fs {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func driftChart(t *testing.T) string { return writeChart(t, driftChartFiles) }

// patch writes to a live object as kubectl would, with its field manager.
func patch(t *testing.T, ns string, target ref, pt types.PatchType, body, manager string, subresource ...string) {
	t.Helper()
	if _, err := env.Dynamic().Resource(target.gvr).Namespace(ns).Patch(context.Background(), target.name, pt, []byte(body),
		metav1.PatchOptions{FieldManager: manager}, subresource...); err != nil {
		t.Fatalf("%s %s/%s %s: %v", manager, ns, target.name, body, err)
	}
}

// autoscale writes the replicas of Deployment scaled as an autoscaler does.
func autoscale(t *testing.T, ns string, replicas int) {
	t.Helper()
	patch(t, ns, ref{deployments, "scaled"}, types.MergePatchType, `{"spec":{"replicas":`+strconv.Itoa(replicas)+`}}`, managerHPA, "scale")
}

// Out-of-band changes, each as the kubectl command named does it.
func kubectlScaleWeb(t *testing.T, ns string) { // kubectl scale deployment web --replicas 5
	patch(t, ns, ref{deployments, "web"}, types.MergePatchType, `{"spec":{"replicas":5}}`, managerScale, "scale")
}

func kubectlLabelWeb(t *testing.T, ns string) { // kubectl label deployment web tier=two --overwrite
	patch(t, ns, ref{deployments, "web"}, types.MergePatchType, `{"metadata":{"labels":{"tier":"two"}}}`, managerLabel)
}

func kubectlSetEnvWeb(t *testing.T, ns string) { // kubectl set env deployment web GREETING=bye
	patch(t, ns, ref{deployments, "web"}, types.StrategicMergePatchType,
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"GREETING","value":"bye"}]}]}}}}`, managerSet)
}

func kubectlEditSettings(t *testing.T, ns string) { // kubectl edit configmap settings (mode: slow)
	patch(t, ns, ref{configMaps, "settings"}, types.StrategicMergePatchType, `{"data":{"mode":"slow"}}`, managerEdit)
}

func kubectlPatchCreds(t *testing.T, ns string) { // kubectl patch secret creds -p ...
	patch(t, ns, ref{secrets, "creds"}, types.MergePatchType, `{"data":{"password":"`+b64(driftLeaked)+`"}}`, managerPatch)
}

func deleteService(t *testing.T, ns string) { // kubectl delete service web
	t.Helper()
	if err := env.Dynamic().Resource(services).Namespace(ns).Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// driftRow is one expected row of drift's table for a named release.
type driftRow struct {
	object, path, want, live, by string
}

var rfc3339 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

// timeless says whether a row's writer leaves no time: the API server records
// none in the managedFields entry of a write through the scale subresource
// (checked with kubectl scale on this control plane), so AT is "-" there.
func timeless(w driftRow) bool { return strings.HasSuffix(w.by, " (scale)") }

// tableRows splits drift's table (of one named release) into its cells.
func tableRows(out string) [][]string {
	var rows [][]string
	sep := regexp.MustCompile(`\s{2,}`)
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if i == 0 || strings.TrimSpace(l) == "" {
			continue
		}
		rows = append(rows, sep.Split(strings.TrimSpace(l), -1))
	}
	return rows
}

// checkTable fails t unless the table has exactly the rows wanted.
func checkTable(t *testing.T, out string, want []driftRow) {
	t.Helper()
	if !strings.HasPrefix(out, "OBJECT ") {
		t.Fatalf("drift table:\n%s", out)
	}
	rows := tableRows(out)
	if len(rows) != len(want) {
		t.Errorf("drift table has %d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for _, w := range want {
		found := false
		for _, r := range rows {
			if len(r) == 0 || r[0] != w.object {
				continue
			}
			if w.path == "" { // a whole object
				if len(r) >= 2 && r[1] == w.want {
					found = true
				}
				continue
			}
			if len(r) == 6 && r[1] == w.path && r[2] == w.want && r[3] == w.live && r[4] == w.by && (rfc3339.MatchString(r[5]) || timeless(w) && r[5] == "-") {
				found = true
			}
		}
		if !found {
			t.Errorf("drift table lacks %+v:\n%s", w, out)
		}
	}
}

// driftJSON is drift -o json.
type driftJSON []struct {
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	Revision  int    `json:"revision"`
	Drifted   bool   `json:"drifted"`
	Error     string `json:"error"`
	Objects   []struct {
		Object     string `json:"object"`
		State      string `json:"state"`
		Correction string `json:"correction"`
		Fields     []struct {
			Path        string `json:"path"`
			Want        any    `json:"want"`
			Live        any    `json:"live"`
			Removed     bool   `json:"removed"`
			Manager     string `json:"manager"`
			Operation   string `json:"operation"`
			Subresource string `json:"subresource"`
			Time        string `json:"time"`
			Secret      bool   `json:"secret"`
		} `json:"fields"`
	} `json:"objects"`
}

func parseDriftJSON(t *testing.T, out string) driftJSON {
	t.Helper()
	var d driftJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("drift -o json: %v\n%s", err, out)
	}
	return d
}

// jsonRows turns one release of drift -o json into table rows, to compare
// with the same expectations.
func (d driftJSON) rows(t *testing.T, release string) []driftRow {
	t.Helper()
	var out []driftRow
	for _, r := range d {
		if r.Release != release {
			continue
		}
		for _, o := range r.Objects {
			if len(o.Fields) == 0 {
				out = append(out, driftRow{object: o.Object, want: "(" + o.State + ")"})
				continue
			}
			for _, f := range o.Fields {
				by := f.Manager
				if f.Subresource != "" {
					by += " (" + f.Subresource + ")"
				}
				if !rfc3339.MatchString(f.Time) && (f.Time != "" || f.Subresource != "scale") {
					t.Errorf("%s %s: time %q", o.Object, f.Path, f.Time)
				}
				out = append(out, driftRow{object: o.Object, path: f.Path, want: jsonValue(f.Want), live: jsonValue(f.Live), by: by})
			}
		}
	}
	return out
}

func jsonValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sameRows(t *testing.T, what string, got, want []driftRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows %+v, want %+v", what, len(got), got, want)
		return
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("%s lacks %+v; has %+v", what, w, got)
		}
	}
}

// noSecret fails t when out has a Secret value, plain or base64.
func noSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, v := range []string{driftPassword, driftLeaked} {
		if strings.Contains(out, v) || strings.Contains(out, b64(v)) {
			t.Errorf("%s shows the Secret value %q:\n%s", what, v, out)
		}
	}
}

// expectDrift runs drift --detailed-exitcode and checks the exit status.
func expectDrift(t *testing.T, code int, args ...string) result {
	t.Helper()
	r := run(t, nil, append(append([]string{"drift"}, args...), "--detailed-exitcode")...)
	if r.code != code {
		t.Fatalf("drift %s --detailed-exitcode: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, code, r.out, r.err)
	}
	if code == 0 && r.out != "no drift\n" {
		t.Errorf("drift %s with nothing drifted printed:\n%s", strings.Join(args, " "), r.out)
	}
	return r
}

// liveState is what the out-of-band changes touch, as "field=value" pairs.
func liveState(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	web := get(t, deployments, ns, "web")
	if web == nil {
		t.Fatal("Deployment web is gone")
	}
	replicas, _, _ := unstructured.NestedInt64(web.Object, "spec", "replicas")
	out["web.replicas"] = strconv.Itoa(int(replicas))
	out["web.tier"] = web.GetLabels()["tier"]
	containers, _, _ := unstructured.NestedSlice(web.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		envs, _, _ := unstructured.NestedSlice(c.(map[string]any), "env")
		for _, e := range envs {
			if e.(map[string]any)["name"] == "GREETING" {
				out["web.GREETING"], _ = e.(map[string]any)["value"].(string)
			}
		}
	}
	scaled, _, _ := unstructured.NestedInt64(get(t, deployments, ns, "scaled").Object, "spec", "replicas")
	out["scaled.replicas"] = strconv.Itoa(int(scaled))
	out["settings.mode"], _, _ = unstructured.NestedString(get(t, configMaps, ns, "settings").Object, "data", "mode")
	pw, _, _ := unstructured.NestedString(get(t, secrets, ns, "creds").Object, "data", "password")
	p, _ := base64.StdEncoding.DecodeString(pw)
	out["creds.password"] = string(p)
	out["service"] = "present"
	if get(t, services, ns, "web") == nil {
		out["service"] = "missing"
	}
	return out
}

func checkLive(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], w)
		}
	}
}

// restored is the live state the chart sets, with the autoscaler's 4 replicas.
var restored = map[string]string{"web.replicas": "2", "web.tier": "one", "web.GREETING": "hello", "scaled.replicas": "4",
	"settings.mode": "fast", "creds.password": driftPassword, "service": "present"}

// releaseDescription is the description of the release's only revision.
func releaseDescription(t *testing.T, ns, name string) string {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	h, err := secret.New(client).History(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 {
		t.Fatalf("release %s/%s has %d revisions, want 1", ns, name, len(h))
	}
	return h[0].Info.Description
}

// helmReads checks that Helm still reads the release: its history (one
// revision, deployed, the correction in its description) and its status.
func helmReads(t *testing.T, helm, ns, name string) {
	t.Helper()
	var h []struct {
		Revision    int    `json:"revision"`
		Status      string `json:"status"`
		Description string `json:"description"`
	}
	out := runHelm(t, helm, "history", name, "-n", ns, "-o", "json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &h); err != nil {
		t.Fatalf("helm history -o json: %v\n%s", err, out)
	}
	if len(h) != 1 || h[0].Revision != 1 || h[0].Status != "deployed" || !strings.Contains(h[0].Description, "; drift corrected ") {
		t.Errorf("helm history after the correction: %+v", h)
	}
	if out := runHelm(t, helm, "status", name, "-n", ns); !strings.Contains(out, "STATUS: deployed") {
		t.Errorf("helm status after the correction:\n%s", out)
	}
}

// Drift of a release we installed: nothing after the install (server defaults
// and an autoscaler's replicas are not drift); then each kind of out-of-band
// change reported with its field, both values and the kubectl manager that
// made it, Secret values hidden; --correct puts everything back, records it
// on the revision, and Helm still reads the release.
func TestDriftReportAndCorrect(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := driftChart(t)
	mustRun(t, "install", "r", chart, "-n", ns)
	autoscale(t, ns, 4)
	expectDrift(t, 0, "r", "-n", ns)

	kubectlScaleWeb(t, ns)
	kubectlLabelWeb(t, ns)
	kubectlSetEnvWeb(t, ns)
	kubectlEditSettings(t, ns)
	kubectlPatchCreds(t, ns)
	deleteService(t, ns)
	autoscale(t, ns, 3)

	want := []driftRow{
		{"Deployment " + ns + "/web", ".spec.replicas", "2", "5", managerScale + " (scale)"},
		{"Deployment " + ns + "/web", ".metadata.labels.tier", "one", "two", managerLabel},
		{"Deployment " + ns + "/web", ".spec.template.spec.containers[name=web].env[name=GREETING].value", "hello", "bye", managerSet},
		{"ConfigMap " + ns + "/settings", ".data.mode", "fast", "slow", managerEdit},
		{"Secret " + ns + "/creds", ".data.password", "***", "*** (changed)", managerPatch},
		{object: "Service " + ns + "/web", want: "(missing: deleted out of band)"},
	}
	r := expectDrift(t, 2, "r", "-n", ns)
	checkTable(t, r.out, want)
	noSecret(t, "drift", r.out+r.err)
	if strings.Contains(r.out, "/scaled") {
		t.Errorf("the autoscaler's replicas are reported as drift:\n%s", r.out)
	}

	r = expectDrift(t, 2, "r", "-n", ns, "-o", "json")
	noSecret(t, "drift -o json", r.out+r.err)
	d := parseDriftJSON(t, r.out)
	if len(d) != 1 || d[0].Release != "r" || d[0].Namespace != ns || d[0].Revision != 1 || !d[0].Drifted || d[0].Error != "" {
		t.Errorf("drift -o json: %s", r.out)
	}
	sameRows(t, "drift -o json", d.rows(t, "r"), want)
	for _, o := range d[0].Objects {
		switch {
		case strings.HasPrefix(o.Object, "Service ") && o.Correction != "create":
			t.Errorf("%s: correction %q, want create", o.Object, o.Correction)
		case !strings.HasPrefix(o.Object, "Service ") && o.Correction != "update":
			t.Errorf("%s: correction %q, want update", o.Object, o.Correction)
		}
	}
	y := expectDrift(t, 2, "r", "-n", ns, "-o", "yaml")
	if !strings.Contains(y.out, "path: .data.mode") {
		t.Errorf("drift -o yaml:\n%s", y.out)
	}
	noSecret(t, "drift -o yaml", y.out+y.err)
	if r := expectDrift(t, 2, "r", "-n", ns, "--show-secrets"); !strings.Contains(r.out, b64(driftLeaked)) && !strings.Contains(r.out, driftLeaked) {
		t.Errorf("drift --show-secrets does not show the Secret's live value:\n%s", r.out)
	}

	// --correct --dry-run shows and changes nothing.
	tampered := liveState(t, ns)
	r = mustRun(t, "drift", "r", "-n", ns, "--correct", "--dry-run")
	checkTable(t, r.out, want)
	checkLive(t, "after --correct --dry-run", liveState(t, ns), tampered)
	if desc := releaseDescription(t, ns, "r"); strings.Contains(desc, "drift corrected") {
		t.Errorf("--dry-run recorded a correction: %q", desc)
	}

	r = mustRun(t, "drift", "r", "-n", ns, "--correct")
	if !strings.HasPrefix(r.out, `release "r": corrected`+"\n") {
		t.Errorf("drift --correct printed:\n%s", r.out)
	}
	noSecret(t, "drift --correct", r.out+r.err)
	checkLive(t, "after --correct", liveState(t, ns), map[string]string{"web.replicas": "2", "web.tier": "one", "web.GREETING": "hello",
		"scaled.replicas": "3", "settings.mode": "fast", "creds.password": driftPassword, "service": "present"})
	expectDrift(t, 0, "r", "-n", ns)
	if got := statuses(t, ns, "r"); got != "1:deployed" {
		t.Errorf("history after the correction = %s", got)
	}
	desc := releaseDescription(t, ns, "r")
	if !regexp.MustCompile(`^Install complete; drift corrected \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(4 object\(s\)\)$`).MatchString(desc) {
		t.Errorf("description after the correction = %q", desc)
	}
	helmReads(t, helmPeer(t), ns, "r")
	if r := mustRun(t, "drift", "r", "-n", ns, "--correct"); r.out != `release "r" has not drifted; nothing to correct`+"\n" {
		t.Errorf("drift --correct with nothing drifted printed:\n%s", r.out)
	}
	if d := releaseDescription(t, ns, "r"); d != desc {
		t.Errorf("a correction of nothing changed the description to %q", d)
	}
}

// Drift of releases real Helm installed (Helm 3 writes with client-side
// updates, Helm 4 with server-side apply, both as manager "helm"): the same
// report, correction, and Helm still reads them.
func TestDriftHelmInstalled(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"v3.22.0", "v4.3.1"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			helm := helmPeerVersion(t, version)
			ns := env.Namespace(t)
			runHelm(t, helm, "install", "r", driftChart(t), "-n", ns)
			autoscale(t, ns, 4)
			expectDrift(t, 0, "r", "-n", ns)
			// managedFields times have seconds; in the second of Helm 3's
			// create, the "helm" entry (left owning .data as a leaf once
			// kubectl-patch took .data.password) ties with kubectl-patch's.
			nextSecond()

			kubectlScaleWeb(t, ns)
			kubectlLabelWeb(t, ns)
			kubectlSetEnvWeb(t, ns)
			kubectlEditSettings(t, ns)
			kubectlPatchCreds(t, ns)
			deleteService(t, ns)
			want := []driftRow{
				{"Deployment " + ns + "/web", ".spec.replicas", "2", "5", managerScale + " (scale)"},
				{"Deployment " + ns + "/web", ".metadata.labels.tier", "one", "two", managerLabel},
				{"Deployment " + ns + "/web", ".spec.template.spec.containers[name=web].env[name=GREETING].value", "hello", "bye", managerSet},
				{"ConfigMap " + ns + "/settings", ".data.mode", "fast", "slow", managerEdit},
				{"Secret " + ns + "/creds", ".data.password", "***", "*** (changed)", managerPatch},
				{object: "Service " + ns + "/web", want: "(missing: deleted out of band)"},
			}
			r := expectDrift(t, 2, "r", "-n", ns)
			checkTable(t, r.out, want)
			noSecret(t, "drift", r.out+r.err)
			r = expectDrift(t, 2, "r", "-n", ns, "-o", "json")
			sameRows(t, "drift -o json", parseDriftJSON(t, r.out).rows(t, "r"), want)

			mustRun(t, "drift", "r", "-n", ns, "--correct")
			checkLive(t, "after --correct", liveState(t, ns), restored)
			expectDrift(t, 0, "r", "-n", ns)
			if got := statuses(t, ns, "r"); got != "1:deployed" {
				t.Errorf("history after the correction = %s", got)
			}
			helmReads(t, helm, ns, "r")
		})
	}
}

// nextSecond sleeps into the next wall-clock second.
func nextSecond() {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 50*time.Millisecond).Sub(now))
}

// timestamps are the lines of status that carry a time.
var timestamps = regexp.MustCompile(`(?m)^(LAST DEPLOYED|FIRST DEPLOYED): .*$`)

// status says on stderr whether the release drifted and leaves stdout as it
// was; --show-drift prints the table; upgrade --correct-drift with no chart
// change puts the drifted object back.
func TestDriftStatusAndUpgrade(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := driftChart(t)
	mustRun(t, "install", "r", chart, "-n", ns)
	autoscale(t, ns, 4)

	// Helm 3's status: Helm 4's lists the live resources, whose ages and
	// pods change between two runs anyway.
	before := mustRun(t, "status", "r", "-n", ns, "--compat", "helm3")
	if strings.TrimSpace(before.err) != "DRIFT: none" || strings.Contains(before.out, "DRIFT") {
		t.Errorf("status of an undrifted release:\nstdout:\n%s\nstderr:\n%s", before.out, before.err)
	}
	kubectlEditSettings(t, ns)
	after := mustRun(t, "status", "r", "-n", ns, "--compat", "helm3")
	if want := "DRIFT: 1 object(s) changed behind the release's back (kubectl chart drift r -n " + ns + ")"; strings.TrimSpace(after.err) != want {
		t.Errorf("status stderr after a drift = %q, want %q", after.err, want)
	}
	if b, a := timestamps.ReplaceAllString(before.out, "$1"), timestamps.ReplaceAllString(after.out, "$1"); a != b {
		t.Errorf("status stdout changed with the drift:\nbefore:\n%s\nafter:\n%s", before.out, after.out)
	}
	shown := mustRun(t, "status", "r", "-n", ns, "--show-drift", "--compat", "helm3")
	i := strings.Index(shown.out, "DRIFT:\n")
	if i < 0 || timestamps.ReplaceAllString(shown.out[:i], "$1") != timestamps.ReplaceAllString(before.out, "$1") {
		t.Fatalf("status --show-drift:\n%s", shown.out)
	}
	checkTable(t, shown.out[i+len("DRIFT:\n"):], []driftRow{{"ConfigMap " + ns + "/settings", ".data.mode", "fast", "slow", managerEdit}})

	r := mustRun(t, "upgrade", "r", chart, "-n", ns, "--correct-drift")
	if !strings.Contains(r.out, `Release "r" has been upgraded`) {
		t.Errorf("upgrade --correct-drift printed:\n%s", r.out)
	}
	checkLive(t, "after upgrade --correct-drift", liveState(t, ns), restored)
	if got := statuses(t, ns, "r"); got != "1:superseded 2:deployed" {
		t.Errorf("history after the upgrade = %s", got)
	}
	expectDrift(t, 0, "r", "-n", ns)
	if r := mustRun(t, "status", "r", "-n", ns); strings.TrimSpace(r.err) != "DRIFT: none" {
		t.Errorf("status after upgrade --correct-drift: stderr %q", r.err)
	}
}

// crdChart installs a CRD (from crds/) and a custom resource of it, and a
// ConfigMap; group makes the CRD the test's own.
func crdChart(t *testing.T, group string) string {
	return writeChart(t, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: withcrd\nversion: 0.1.0\n",
		"crds/gizmo.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.` + group + `
spec:
  group: ` + group + `
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`,
		"templates/gizmo.yaml": `apiVersion: ` + group + `/v1
kind: Gizmo
metadata:
  name: g
spec:
  size: 3
`,
		"templates/settings.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`,
	})
}

// A release whose manifest has a kind the cluster no longer serves still gets
// the rest of its drift reported; drift -A reports an unreadable release
// record and still lists the others' drift, and fails.
func TestDriftBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns, badNS := env.Namespace(t), env.Namespace(t)
	group := ns + ".drift.kubectl-chart.dev"
	crd := "gizmos." + group
	t.Cleanup(func() { _ = env.Dynamic().Resource(crds).Delete(context.Background(), crd, metav1.DeleteOptions{}) })
	mustRun(t, "install", "withcrd", crdChart(t, group), "-n", ns)
	expectDrift(t, 0, "withcrd", "-n", ns)

	if err := env.Dynamic().Resource(crds).Delete(ctx, crd, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := cluster.WaitGone(waitCtx, env.Dynamic(), crds, "", crd); err != nil {
		t.Fatal(err)
	}
	kubectlEditSettings(t, ns)
	want := []driftRow{
		{object: "Gizmo " + ns + "/g", want: "(kind not served by the cluster)"},
		{"ConfigMap " + ns + "/settings", ".data.mode", "fast", "slow", managerEdit},
	}
	r := expectDrift(t, 2, "withcrd", "-n", ns)
	checkTable(t, r.out, want)
	r = expectDrift(t, 2, "withcrd", "-n", ns, "-o", "json")
	sameRows(t, "drift -o json", parseDriftJSON(t, r.out).rows(t, "withcrd"), want)

	// A release record that cannot be decoded.
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
		"metadata": map[string]any{"name": "sh.helm.release.v1.bad.v1",
			"labels": map[string]any{"owner": "helm", "name": "bad", "status": "deployed", "version": "1"}},
		"data": map[string]any{"release": b64("not a release at all")},
	}}
	if _, err := env.Dynamic().Resource(secrets).Namespace(badNS).Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Other tests' releases may be listed too; only ours are checked.
	r = run(t, nil, "drift", "-A", "--detailed-exitcode")
	if r.code != 1 || !strings.Contains(r.err, "could not be checked") || !strings.Contains(r.err, "sh.helm.release.v1.bad.v1") {
		t.Errorf("drift -A with an unreadable release: exit %d, want 1\nstderr:\n%s", r.code, r.err)
	}
	var badRow, gizmoRow, settingsRow bool
	for _, l := range strings.Split(r.out, "\n") {
		badRow = badRow || strings.Contains(l, "sh.helm.release.v1.bad.v1") && strings.Contains(l, "(release)") && strings.Contains(l, "error: ")
		gizmoRow = gizmoRow || strings.HasPrefix(l, ns+" ") && strings.Contains(l, " withcrd ") && strings.Contains(l, "Gizmo "+ns+"/g") && strings.Contains(l, "(kind not served by the cluster)")
		settingsRow = settingsRow || strings.HasPrefix(l, ns+" ") && strings.Contains(l, " withcrd ") && regexp.MustCompile(`ConfigMap \S+/settings\s+\.data\.mode\s+fast\s+slow\s+kubectl-edit\s`).MatchString(l)
	}
	if !badRow || !gizmoRow || !settingsRow {
		t.Errorf("drift -A: row of the unreadable release %v, of the unserved kind %v, of the drifted ConfigMap %v:\n%s", badRow, gizmoRow, settingsRow, r.out)
	}

	r = run(t, nil, "drift", "-A", "-o", "json")
	if r.code != 1 {
		t.Errorf("drift -A -o json: exit %d, want 1\n%s", r.code, r.err)
	}
	d := parseDriftJSON(t, r.out)
	sameRows(t, "drift -A -o json", d.rows(t, "withcrd"), want)
	found := false
	for _, rel := range d {
		found = found || strings.Contains(rel.Release+rel.Error, "sh.helm.release.v1.bad.v1") && rel.Error != ""
	}
	if !found {
		t.Errorf("drift -A -o json does not report the unreadable release:\n%s", r.out)
	}

	// A selector on the storage labels leaves the unreadable record out.
	r = expectDrift(t, 2, "-A", "-l", "name=withcrd")
	if strings.Contains(r.out, "bad.v1") || !strings.Contains(r.out, "Gizmo "+ns+"/g") {
		t.Errorf("drift -A -l name=withcrd:\n%s", r.out)
	}
}

// What the API server stores differently from how a chart writes it is not
// drift: a Secret's stringData (stored merged into data), resource quantities
// written as YAML numbers (stored as strings: 1 → "1", 0.5 → "500m"), and empty
// maps and lists (dropped). Right after the install nothing has drifted.
func TestDriftServerNormalisedValues(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := writeChart(t, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: normalised\nversion: 0.1.0\n",
		"templates/secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: plain
stringData:
  user: admin
`,
		"templates/empty.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: empty
data: {}
`,
		"templates/app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: nginx
          args: []
          resources:
            limits: {cpu: 1, memory: 1Gi}
            requests: {cpu: 0.5, memory: 64Mi}
`,
	})
	mustRun(t, "install", "n", chart, "-n", ns)
	r := run(t, nil, "drift", "n", "-n", ns, "--detailed-exitcode")
	if r.code != 0 || r.out != "no drift\n" {
		t.Errorf("drift right after the install: exit %d, want 0\n%s%s", r.code, r.out, r.err)
	}
	if r := run(t, nil, "status", "n", "-n", ns); strings.TrimSpace(r.err) != "DRIFT: none" {
		t.Errorf("status right after the install: stderr %q", r.err)
	}
}
