package main

import (
	"path/filepath"
	"strings"
)

// programName is the name the binary was run under, without a directory or
// Windows' .exe: kubectl-chart, kubectl_complete-chart, or helm.
func programName(argv0 string) string {
	return strings.TrimSuffix(filepath.Base(argv0), ".exe")
}

// invokedAsHelm reports whether the binary runs under the name helm, installed
// where tools (helmfile, chart-testing, Argo CD, scripts) run Helm.
func invokedAsHelm(argv0 string) bool {
	return programName(argv0) == "helm"
}
