package main

import (
	"testing"
)

// Errors scripts match are Helm's (v4.3.1 and v3.22.0 say the same), with
// this program's name for helm.
func TestErrorsInHelmsWords(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"c/Chart.yaml":         "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c-0.1.0.tgz":          "not checked before the .prov",
		"notes.txt":            "x",
		"notes.txt.prov":       "x",
		"rc/repositories.yaml": "apiVersion: \"\"\nrepositories:\n- name: r\n  url: http://127.0.0.1:1/charts\n",
		"rc/r-index.yaml":      "apiVersion: v1\nentries:\n  c:\n  - apiVersion: v2\n    name: c\n    version: 0.1.0\n    urls: [http://127.0.0.1:1/charts/c-0.1.0.tgz]\n  pre:\n  - apiVersion: v2\n    name: pre\n    version: 0.2.0-rc1\n    urls: [http://127.0.0.1:1/charts/pre-0.2.0-rc1.tgz]\n",
	})
	t.Chdir(dir)
	repo := []string{"--repository-config", "rc/repositories.yaml", "--repository-cache", "rc"}
	tests := map[string]struct {
		args    []string
		wantErr string
	}{
		"verify a directory":       {args: []string{"verify", "c"}, wantErr: "unpacked charts cannot be verified"},
		"verify a missing file":    {args: []string{"verify", "nope.tgz"}, wantErr: "stat nope.tgz: no such file or directory"},
		"verify without .prov":     {args: []string{"verify", "c-0.1.0.tgz"}, wantErr: "could not load provenance file c-0.1.0.tgz.prov: stat c-0.1.0.tgz.prov: no such file or directory"},
		"verify what is not a tgz": {args: []string{"verify", "notes.txt"}, wantErr: "chart must be a tgz file"},
		"dependency list, no path": {args: []string{"dependency", "list", "nope"}, wantErr: "stat nope: no such file or directory"},
		"search, a bad regexp":     {args: append([]string{"search", "repo", "--regexp", "["}, repo...), wantErr: "error parsing regexp: missing closing ]: `[`"},
		"no such chart":            {args: append([]string{"pull", "r/nope"}, repo...), wantErr: `chart "nope" matching  not found in r index. (try 'kubectl chart repo update'): no chart name found`},
		"no such version":          {args: append([]string{"template", "r/c", "--version", "9.9.9"}, repo...), wantErr: `chart "c" matching 9.9.9 not found in r index. (try 'kubectl chart repo update'): no chart version found for c-9.9.9`},
		"no such version, --devel": {args: append([]string{"show", "chart", "r/c", "--devel", "--version", ">5"}, repo...), wantErr: `chart "c" matching >5 not found in r index. (try 'kubectl chart repo update'): no chart version found for c->5`},
		"only prereleases":         {args: append([]string{"pull", "r/pre"}, repo...), wantErr: "chart \"pre\" matching  not found in r index. (try 'kubectl chart repo update'): no chart version found for pre-\nonly prereleases of the chart exist: use --devel to consider them"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := runRoot(t, tc.args...)
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// Helm 4 says which check refused a release name, and logs it.
func TestTemplateReleaseNameCheck(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"})
	const invalid = `release name "Bad_Name": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53`
	for compat, want := range map[string]struct{ err, stderr string }{
		"helm4": {"release name check failed: " + invalid, `level=ERROR msg="release name check failed" error="release name \"Bad_Name\": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"` + "\n"},
		"helm3": {invalid, ""},
	} {
		t.Run(compat, func(t *testing.T) {
			_, stderr, err := runRoot(t, "template", "Bad_Name", dir, "--compat", compat)
			if err == nil || err.Error() != want.err || stderr != want.stderr {
				t.Fatalf("error = %v, stderr %q", err, stderr)
			}
		})
	}
}
