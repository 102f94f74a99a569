package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// -f takes http(s) URLs, as Helm's does; read errors are the file's own.
func TestValuesFromURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/values.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("name: from-url\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
	})
	out, _, err := runRoot(t, "template", "r", dir, "-f", srv.URL+"/values.yaml")
	if err != nil || !strings.Contains(out, "name: from-url\n") {
		t.Errorf("values from a URL: %v\n%s", err, out)
	}
	if _, _, err := runRoot(t, "template", "r", dir, "-f", srv.URL+"/missing.yaml"); err == nil || !strings.Contains(err.Error(), "failed to fetch "+srv.URL+"/missing.yaml : 404") {
		t.Errorf("missing URL: %v", err)
	}
	missing := filepath.Join(dir, "nope.yaml")
	if _, _, err := runRoot(t, "template", "r", dir, "-f", missing); err == nil || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}
