{{- define "greeting" -}}
hello from {{ .Environment.Name }}
{{- end -}}
