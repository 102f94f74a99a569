{{- define "lib.banner" -}}welcome to {{ .Chart.Name }}{{- end -}}
