//go:build linux

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostileCredentials gives commands repository URLs holding a password: no message
// may show it.
func hostileCredentials(t *testing.T, bin string) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := map[string]struct {
		args []string
		want string
	}{
		"repo add, not found": {
			args: []string{"repo", "add", "x", "http://user:S3cretPW@" + host + "/"},
			want: `looks like "http://user:***@` + host + `/" is not a valid chart repository or cannot be reached: failed to fetch http://user:***@` + host + `/index.yaml : 404 Not Found`,
		},
		"repo add, unparseable": {
			args: []string{"repo", "add", "x", "http://user:S3cretPW@" + host + "/%zz"},
			want: `looks like "http://user:***@` + host + `/%zz" is not a valid chart repository or cannot be reached: invalid URL "http://user:***@` + host + `/%zz/index.yaml": parse "http://user:***@` + host + `/%zz/index.yaml": invalid URL escape "%zz"`,
		},
		"pull": {
			args: []string{"pull", "http://user:S3cretPW@" + host + "/x-1.0.0.tgz"},
			want: "failed to fetch http://user:***@" + host + "/x-1.0.0.tgz : 404 Not Found",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			run := runHostile(t, bin, t.TempDir(), tt.args...)
			if strings.Contains(run.stdout+run.stderr, "S3cretPW") {
				t.Fatalf("the password is shown:\n%s%s", run.stdout, run.stderr)
			}
			wantRefusal(t, run, tt.want)
		})
	}
}
