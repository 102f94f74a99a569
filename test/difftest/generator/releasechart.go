package generator

import (
	"fmt"
	"strings"
)

// releaseTemplates are the templates a release chart may hold, each an
// object or a hook the cluster takes (kwok makes Deployments' pods run and
// Jobs' pods succeed). Values steer them: broken makes an object the API
// server refuses, selector changes a Deployment's immutable selector,
// testFail a test hook the API server refuses, hookJob a Job hook.
var releaseTemplates = []struct{ name, text string }{
	{"configmap.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels:
    app: {{ .Chart.Name }}
data:
  str: {{ .Values.str | quote }}
  num: {{ .Values.num | quote }}
  revision: "{{ .Release.Revision }}"
  upgrade: "{{ .Release.IsUpgrade }}"
  list: {{ .Values.list | toJson | quote }}
  map: {{ .Values.map | toJson | quote }}
`},
	{"secret.yaml", `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
type: Opaque
stringData:
  password: {{ .Values.str | quote }}
`},
	{"deployment.yaml", `{{- if .Values.deploy.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app: {{ .Release.Name }}-{{ .Values.selector }}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}-{{ .Values.selector }}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: {{ .Values.port }}
{{- end }}
`},
	{"service.yaml", `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  selector:
    app: {{ .Release.Name }}-{{ .Values.selector }}
  ports:
    - port: {{ .Values.port }}
`},
	{"broken.yaml", `{{- if .Values.broken }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-Broken
{{- end }}
`},
	{"hook-pre.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-pre
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade,pre-rollback
    "helm.sh/hook-weight": "-1"
    "helm.sh/hook-delete-policy": %s
data:
  revision: "{{ .Release.Revision }}"
`},
	{"hook-post.yaml", `{{- if .Values.hookJob }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-post
  annotations:
    "helm.sh/hook": post-install,post-upgrade,pre-delete
    "helm.sh/hook-delete-policy": %s
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: post
          image: busybox
{{- end }}
`},
	{"tests/test.yaml", `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-test
  annotations:
    "helm.sh/hook": test
    "helm.sh/hook-delete-policy": %s
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: test
{{- if not .Values.testFail }}
          image: busybox
{{- end }}
`},
}

// hookDeletePolicies are drawn for each hook.
var hookDeletePolicies = []string{"before-hook-creation", "hook-succeeded", "hook-failed", "before-hook-creation,hook-succeeded"}

// releaseChart draws a chart (chart/), its next version (chart2/: another
// version, defaults and sometimes a changed selector or an object the API
// server refuses) and two values files.
func (d *draw) releaseChart() []File {
	var templates []File
	for _, t := range releaseTemplates {
		if t.name != "configmap.yaml" && d.chance(0.35) {
			continue
		}
		text := t.text
		if strings.Contains(text, "%s") {
			text = fmt.Sprintf(text, d.pick(hookDeletePolicies))
		}
		templates = append(templates, File{"templates/" + t.name, text})
	}
	if d.chance(0.4) {
		templates = append(templates, File{"templates/NOTES.txt", "Release {{ .Release.Name }} revision {{ .Release.Revision }}: {{ .Values.str }}\n"})
	}
	values := func(str, selector string, broken bool) string {
		v := fmt.Sprintf("str: %s\nnum: 1\nreplicas: 1\nport: 80\nselector: %s\nlist: [x]\nmap: {}\ndeploy:\n  enabled: true\nhookJob: %v\ntestFail: false\n", str, selector, d.chance(0.5))
		if broken {
			v += "broken: true\n"
		}
		return v
	}
	chartYAML := func(version string) string {
		return fmt.Sprintf("apiVersion: v2\nname: app\nversion: %s\nappVersion: %q\n", version, version)
	}
	var files []File
	add := func(dir, version, vals string) {
		files = append(files, File{dir + "/Chart.yaml", chartYAML(version)}, File{dir + "/values.yaml", vals})
		for _, t := range templates {
			files = append(files, File{dir + "/" + t.Path, t.Data})
		}
	}
	add("chart", "0.1.0", values("hello", "web", false))
	add("chart2", "0.2.0", values(d.pick([]string{"hello", "next"}), d.pick([]string{"web", "web", "v2"}), d.chance(0.15)))
	files = append(files,
		File{"v1.yaml", "str: from-v1\nnum: 2\n"},
		File{"v2.yaml", d.pick([]string{"replicas: 2\nmap:\n  a: b\n", "list: [y, z]\nstr: from-v2\n", "deploy:\n  enabled: false\n"})},
	)
	return files
}
