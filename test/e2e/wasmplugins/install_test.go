//go:build e2e

package wasmplugins

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
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"
)

// pushPlugin pushes archive (NAME-VERSION.tgz) as a Helm 4 plugin artifact to
// host/repo:tag, as `oras push --artifact-type application/vnd.helm.plugin.v1+json` does.
func pushPlugin(t *testing.T, host, repo, tag, filename string, archive []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	layer := ocispec.Descriptor{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: digest.FromBytes(archive),
		Size: int64(len(archive)), Annotations: map[string]string{ocispec.AnnotationTitle: filename}}
	if err := r.Blobs().Push(ctx, layer, bytes.NewReader(archive)); err != nil {
		t.Fatal(err)
	}
	m, err := oras.PackManifest(ctx, r, oras.PackManifestVersion1_1, "application/vnd.helm.plugin.v1+json",
		oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Tag(ctx, m, tag); err != nil {
		t.Fatal(err)
	}
}

// TestInstall installs a Wasm plugin packaged by Helm from an OCI registry on
// 127.0.0.1 and from a .tgz URL, with Helm v4.3.1 and kubectl chart, and runs it.
func TestInstall(t *testing.T) {
	helm := helmPeer(t)
	work := t.TempDir()
	src := filepath.Join(work, "src")
	writePlugin(t, src, "wasmcli", "cli/v1", "cli", "runtimeConfig: {}\n")
	pkg := mustRun(t, helm, work, "plugin", "package", filepath.Join(src, "wasmcli"), "-d", work, "--sign=false")
	if !strings.Contains(pkg, "wasmcli-0.1.0.tgz") {
		t.Fatalf("helm plugin package: %s", pkg)
	}
	archive, err := os.ReadFile(filepath.Join(work, "wasmcli-0.1.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	host := strings.TrimPrefix(reg.URL, "http://")
	pushPlugin(t, host, "plugins/wasmcli", "0.1.0", "wasmcli-0.1.0.tgz", archive)
	pushPlugin(t, host, "plugins/other", "0.1.0", "wasmcli-0.1.0.tgz", archive)
	files := httptest.NewServer(http.FileServer(http.Dir(work)))
	defer files.Close()

	tests := map[string][]string{
		"oci":                  {"oci://" + host + "/plugins/wasmcli:0.1.0", "--plain-http", "--verify=false"},
		"oci unverifiable":     {"oci://" + host + "/plugins/wasmcli:0.1.0", "--plain-http"},
		"oci no such tag":      {"oci://" + host + "/plugins/wasmcli:9.9.9", "--plain-http", "--verify=false"},
		"oci layer not named":  {"oci://" + host + "/plugins/other:0.1.0", "--plain-http", "--verify=false"},
		"tgz url":              {files.URL + "/wasmcli-0.1.0.tgz", "--verify=false"},
		"tgz url unverifiable": {files.URL + "/wasmcli-0.1.0.tgz"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			// Each program installs into its plugins directory, then runs the plugin from there.
			peer := runner{bin: helm, home: filepath.Join(dir, "helm-home"), plugins: filepath.Join(dir, "helm-plugins")}
			ours := runner{bin: bin, home: filepath.Join(dir, "ours-home"), plugins: filepath.Join(dir, "ours-plugins")}
			want := peer.run(t, dir, "", append([]string{"plugin", "install"}, args...)...)
			got := ours.run(t, dir, "", append([]string{"plugin", "install"}, args...)...)
			if got.code != want.code || got.stdout != want.stdout || lastLine(got.stderr) != lastLine(want.stderr) {
				t.Fatalf("ours: %d %q %q\nHelm's: %d %q %q", got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			}
			if want.code != 0 {
				return
			}
			ran := ours.run(t, dir, "", "wasmcli", "installed")
			if ran.code != 0 || ran.stdout != "hello from wasm cli: [\"installed\"]\n" {
				t.Fatalf("installed plugin: %+v", ran)
			}
		})
	}
}

// lastLine is the error line of a failed run, without what the registry
// library logs before it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
