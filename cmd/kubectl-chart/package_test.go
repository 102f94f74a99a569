package main

import (
	"os"
	"path/filepath"
	"testing"
)

// package says what Helm v4.3.1 and v3.22.0 say: the destination as given
// (absolute for the default, the current directory), and no signature
// without a key and a keyring the user named.
func TestPackageLikeHelm(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"c/Chart.yaml":       "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"nodeps/Chart.yaml":  "apiVersion: v2\nname: nodeps\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://../sub\n- name: other\n  version: 1.0.0\n",
		"nodeps/values.yaml": "",
	})
	t.Chdir(dir)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args    []string
		out     string
		wantErr string
	}{
		"default destination":  {args: []string{"c"}, out: "Successfully packaged chart and saved it to: " + filepath.Join(cwd, "c-0.1.0.tgz") + "\n"},
		"relative destination": {args: []string{"c", "-d", "./out/"}, out: "Successfully packaged chart and saved it to: out/c-0.1.0.tgz\n"},
		"absolute destination": {args: []string{"c", "-d", filepath.Join(dir, "abs")}, out: "Successfully packaged chart and saved it to: " + filepath.Join(dir, "abs", "c-0.1.0.tgz") + "\n"},
		"sign without a key":   {args: []string{"c", "--sign", "--keyring", "ring.gpg", "-d", "nokey"}, wantErr: "--key is required for signing a package"},
		// Helm's words alone: install's and template's preamble is not package's.
		"missing dependencies": {args: []string{"nodeps", "-d", "nodeps-out"}, wantErr: "found in Chart.yaml, but missing in charts/ directory: sub, other"},
		"sign without keyring": {args: []string{"c", "--sign", "--key", "me", "--keyring=", "-d", "noring"}, wantErr: "--keyring is required for signing a package"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, append([]string{"package"}, tc.args...)...)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if out != tc.out {
				t.Errorf("stdout = %q, want %q", out, tc.out)
			}
		})
	}
	for _, d := range []string{"nokey", "noring"} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s: refused, yet an archive was written", d)
		}
	}
}
