package redact_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/redact"
)

func TestCredentials(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"quoted URL": {
			in:   `looks like "http://user:S3cret@host/" is not a valid chart repository`,
			want: `looks like "http://user:***@host/" is not a valid chart repository`,
		},
		"unparseable URL in a parser error": {
			in:   `parse "https://u:p%zz@h/%zz/index.yaml": invalid URL escape "%zz"`,
			want: `parse "https://u:***@h/%zz/index.yaml": invalid URL escape "%zz"`,
		},
		"several URLs": {
			in:   "oci://a:b@r1/x and http://c:d:e@r2",
			want: "oci://a:***@r1/x and http://c:***@r2",
		},
		"already redacted":   {in: "Get \"http://user:***@h/\"", want: "Get \"http://user:***@h/\""},
		"no password":        {in: "http://token@host/ and user@example.com", want: "http://token@host/ and user@example.com"},
		"port is no secret":  {in: "http://host:8080/x@y", want: "http://host:8080/x@y"},
		"at sign after path": {in: "https://h/p:q@r", want: "https://h/p:q@r"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := redact.Credentials(tt.in); got != tt.want {
				t.Errorf("Credentials(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
