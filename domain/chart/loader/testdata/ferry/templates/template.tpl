apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
