package main

import (
	"io"
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

// ourLinesTo reports whether lines of our own (progress, summaries, drift)
// may go to w: always as kubectl chart; installed as helm only to a terminal,
// since a tool reading w expects Helm's bytes there.
func ourLinesTo(s *settings, w io.Writer) bool {
	return !s.asHelm || isTerminal(w)
}
