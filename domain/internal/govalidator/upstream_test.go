package govalidator

import (
	"testing"

	upstream "github.com/asaskevich/govalidator"
)

// TestAgreesWithUpstream checks each function against upstream's on the kinds of
// text Chart.yaml's maintainers, sources and icon hold, good and bad.
func TestAgreesWithUpstream(t *testing.T) {
	inputs := []string{
		"", "a", "abc", "abcd", ".example.com", "example.com", "https://example.com",
		"https://example.com/icon.png", "http://user:pw@example.com:8080/p?q=1#f",
		"ftp://192.168.0.1/x", "http://[::1]:80/", "example.com:8080", "localhost:80",
		"//example.com/x", "/just/a/path", "mailto:someone@example.com", "https://exa mple.com",
		"https://ex_ample.com", "https://例子.测试/图标.svg", "wss://host/ws", "gopher://host",
		"https://" + string(make([]byte, 2100)), "someone@example.com", "Some.One+tag@Example.COM",
		"someone@localhost", "someone@", "@example.com", "\"quoted local\"@example.com",
		"someone@example..com", "someone@-example.com", "someone@exam_ple.com", "someone@example.com.",
		"someone@[127.0.0.1]", "a@b.c", "ünïcode@exämple.org", "someone@example.com\n",
	}
	checks := map[string]struct{ ours, theirs func(string) bool }{
		"IsEmail":      {IsEmail, upstream.IsEmail},
		"IsURL":        {IsURL, upstream.IsURL},
		"IsRequestURL": {IsRequestURL, upstream.IsRequestURL},
	}
	for name, c := range checks {
		t.Run(name, func(t *testing.T) {
			for _, in := range inputs {
				if got, want := c.ours(in), c.theirs(in); got != want {
					t.Errorf("%s(%q) = %v, upstream says %v", name, in, got, want)
				}
			}
		})
	}
}
