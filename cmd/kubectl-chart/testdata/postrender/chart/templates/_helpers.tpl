{{ define "x" }}y{{ end }}
