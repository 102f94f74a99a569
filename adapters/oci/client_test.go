package oci_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// startRegistry runs a real OCI registry on 127.0.0.1, behind basic auth when user is set.
func startRegistry(t *testing.T, user, pass string) string {
	t.Helper()
	reg := registry.New(registry.Logger(nilLogger()))
	h := reg
	if user != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			reg.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func chartArchive(t *testing.T, version string) []byte {
	t.Helper()
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: version, Description: "demo"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n")}}}
	var b bytes.Buffer
	if err := archive.Write(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPushPull(t *testing.T) {
	for _, withAuth := range []bool{false, true} {
		t.Run(map[bool]string{false: "anonymous", true: "basic auth"}[withAuth], func(t *testing.T) {
			ctx := context.Background()
			user, pass := "", ""
			if withAuth {
				user, pass = "bob", "hunter2"
			}
			host := startRegistry(t, user, pass)
			creds := filepath.Join(t.TempDir(), "config.json")
			c, err := oci.NewClient(oci.Options{CredentialsFile: creds, PlainHTTP: true})
			if err != nil {
				t.Fatal(err)
			}
			a100, a110 := chartArchive(t, "1.0.0"), chartArchive(t, "1.1.0+build.1")
			if withAuth {
				if _, err := c.Push(ctx, a100, nil, "oci://"+host+"/charts"); err == nil {
					t.Fatal("push without login: want an error")
				}
				if err := c.Login(ctx, host, user, "wrong"); err == nil {
					t.Fatal("login with a wrong password: want an error")
				}
				if err := c.Login(ctx, host, user, pass); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(creds)
				if err != nil || !strings.Contains(string(data), `"auths"`) || !strings.Contains(string(data), host) {
					t.Fatalf("credentials file: %s %v", data, err)
				}
			}
			res, err := c.Push(ctx, a100, []byte("prov"), "oci://"+host+"/charts")
			if err != nil {
				t.Fatal(err)
			}
			if res.Ref != host+"/charts/demo:1.0.0" || !strings.HasPrefix(res.Digest, "sha256:") {
				t.Errorf("pushed %+v", res)
			}
			if _, err := c.Push(ctx, a110, nil, "oci://"+host+"/charts"); err != nil {
				t.Fatal(err)
			}
			tests := map[string]struct {
				ref, version, want string
			}{
				"by tag":                      {"oci://" + host + "/charts/demo:1.0.0", "", "1.0.0"},
				"by version":                  {"oci://" + host + "/charts/demo", "1.0.0", "1.0.0"},
				"by range":                    {"oci://" + host + "/charts/demo", "~1.0", "1.0.0"},
				"newest":                      {"oci://" + host + "/charts/demo", "", "1.1.0+build.1"},
				"by digest":                   {"oci://" + host + "/charts/demo@" + res.Digest, "", "1.0.0"},
				"tag and digest":              {"oci://" + host + "/charts/demo:1.0.0@" + res.Digest, "", "1.0.0"},
				"build metadata":              {"oci://" + host + "/charts/demo", "1.1.0+build.1", "1.1.0+build.1"},
				"version and digest":          {"oci://" + host + "/charts/demo@" + res.Digest, "1.0.0", "1.0.0"},
				"untagged version and digest": {"oci://" + host + "/charts/demo@" + res.Digest, "7.0.0", "1.0.0"},
			}
			for name, tc := range tests {
				t.Run(name, func(t *testing.T) {
					p, err := c.Pull(ctx, tc.ref, tc.version, false)
					if err != nil {
						t.Fatal(err)
					}
					ch, err := loader.LoadArchive(bytes.NewReader(p.Chart), loader.DefaultLimits())
					if err != nil {
						t.Fatal(err)
					}
					if ch.Metadata.Version != tc.want {
						t.Errorf("pulled %s, want %s", ch.Metadata.Version, tc.want)
					}
				})
			}
			p, err := c.Pull(ctx, "oci://"+host+"/charts/demo:1.0.0", "", true)
			if err != nil || string(p.Prov) != "prov" {
				t.Errorf("provenance layer: %q %v", p.Prov, err)
			}
			// A digest that is not the tag's is refused in Helm's words.
			other := "sha256:" + strings.Repeat("0", 64)
			for name, tc := range map[string]struct{ ref, version string }{
				"tag":     {"oci://" + host + "/charts/demo:1.0.0@" + other, ""},
				"version": {"oci://" + host + "/charts/demo@" + other, "1.0.0"},
			} {
				want := "chart reference digest mismatch: " + res.Digest + " is not " + other
				if _, err := c.Pull(ctx, tc.ref, tc.version, false); err == nil || err.Error() != want {
					t.Errorf("%s: error = %v, want %q", name, err, want)
				}
			}
			for _, bad := range []struct{ ref, version string }{
				{"oci://" + host + "/charts/demo@" + other, ""},
				{"oci://" + host + "/charts/demo:9.9.9", ""},
				{"oci://" + host + "/charts/demo", ">5"},
				{"oci://" + host + "/charts/demo:1.0.0", "1.1.0"},
				{"oci://" + host + "/charts/nope", ""},
				{host + "/charts/demo", ""},
			} {
				if _, err := c.Pull(ctx, bad.ref, bad.version, false); err == nil {
					t.Errorf("Pull(%q, %q): want an error", bad.ref, bad.version)
				}
			}
			if _, err := c.Push(ctx, a100, nil, "oci://"+host+"/charts:tag"); err == nil {
				t.Error("push to a tagged reference: want an error")
			}
			if withAuth {
				if err := c.Logout(ctx, host); err != nil {
					t.Fatal(err)
				}
				c2, _ := oci.NewClient(oci.Options{CredentialsFile: creds, PlainHTTP: true})
				if _, err := c2.Pull(ctx, "oci://"+host+"/charts/demo:1.0.0", "", false); err == nil {
					t.Error("pull after logout: want an error")
				}
				// As Helm's: logging out of a host without credentials succeeds.
				if err := c2.Logout(ctx, host); err != nil {
					t.Errorf("second logout: %v", err)
				}
			}
		})
	}
}

// Helm 3 speaks plain HTTP to a registry that answers TLS with HTTP (login and
// pull without --plain-http); Helm 4 does not, and says why.
func TestFallbackToHTTP(t *testing.T) {
	ctx := context.Background()
	open, host := startRegistry(t, "", ""), startRegistry(t, "u", "p")
	dir := t.TempDir()
	plain, err := oci.NewClient(oci.Options{PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Push(ctx, chartArchive(t, "1.0.0"), nil, "oci://"+open+"/charts"); err != nil {
		t.Fatal(err)
	}
	helm3, err := oci.NewClient(oci.Options{CredentialsFile: filepath.Join(dir, "config.json"), FallbackToHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helm3.Pull(ctx, "oci://"+open+"/charts/demo:1.0.0", "", false); err != nil {
		t.Fatalf("Helm 3 pull: %v", err)
	}
	if err := helm3.Login(ctx, host, "u", "p"); err != nil {
		t.Fatalf("Helm 3 login: %v", err)
	}
	helm4, err := oci.NewClient(oci.Options{CredentialsFile: filepath.Join(dir, "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	err = helm4.Login(ctx, host, "u", "p")
	want := `authenticating to "` + host + `": Get "https://` + host + `/v2/": http: server gave HTTP response to HTTPS client`
	if err == nil || err.Error() != want {
		t.Errorf("Helm 4 login: %v, want %s", err, want)
	}
}
