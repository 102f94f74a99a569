package oci_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
)

// pushArtifact pushes layers (title → data) as an artifact of artifactType,
// or with configType as its config's media type when artifactType is empty.
func pushArtifact(t *testing.T, ref, artifactType, configType string, layers map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	i := strings.LastIndex(ref, ":")
	repo, tag := ref[:i], ref[i+1:]
	r, err := remote.NewRepository(repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	var descs []ocispec.Descriptor
	for title, data := range layers {
		d := ocispec.Descriptor{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: digest.FromBytes(data),
			Size: int64(len(data)), Annotations: map[string]string{ocispec.AnnotationTitle: title}}
		if err := r.Blobs().Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		descs = append(descs, d)
	}
	opts := oras.PackManifestOptions{Layers: descs}
	version := oras.PackManifestVersion1_1
	if artifactType == "" {
		version = oras.PackManifestVersion1_0
		cfg := []byte("{}")
		opts.ConfigDescriptor = &ocispec.Descriptor{MediaType: configType, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))}
		if err := r.Blobs().Push(ctx, *opts.ConfigDescriptor, bytes.NewReader(cfg)); err != nil {
			t.Fatal(err)
		}
		artifactType = configType
	}
	m, err := oras.PackManifest(ctx, r, version, artifactType, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Tag(ctx, m, tag); err != nil {
		t.Fatal(err)
	}
}

func TestPullPlugin(t *testing.T) {
	host := startRegistry(t, "", "")
	archive, prov := []byte("\x1f\x8b archive"), []byte("signed")
	pushArtifact(t, host+"/p/wasm:1", oci.PluginArtifactType, "", map[string][]byte{"wasm-1.0.0.tgz": archive, "wasm-1.0.0.tgz.prov": prov})
	pushArtifact(t, host+"/p/legacy:1", "", oci.PluginArtifactType, map[string][]byte{"legacy-1.0.0.tgz": archive})
	pushArtifact(t, host+"/p/image:1", "application/vnd.example+json", "", map[string][]byte{"image-1.0.0.tgz": archive})
	pushArtifact(t, host+"/p/unnamed:1", oci.PluginArtifactType, "", map[string][]byte{"other-1.0.0.tgz": archive})
	tests := map[string]struct {
		ref, err string
		prov     []byte
	}{
		"with provenance":       {ref: "oci://" + host + "/p/wasm:1", prov: prov},
		"legacy config type":    {ref: "oci://" + host + "/p/legacy:1"},
		"not a plugin":          {ref: "oci://" + host + "/p/image:1", err: "expected artifact type application/vnd.helm.plugin.v1+json, got application/vnd.example+json"},
		"no layer named for it": {ref: "oci://" + host + "/p/unnamed:1", err: "required layer matching pattern unnamed-VERSION.tgz not found in manifest"},
		"no tag":                {ref: "oci://" + host + "/p/wasm", err: "a tag or digest is required"},
		"no such tag":           {ref: "oci://" + host + "/p/wasm:2", err: `failed to perform "FetchReference" on source`},
	}
	c, err := oci.NewClient(oci.Options{PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := c.PullPlugin(context.Background(), tc.ref)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !bytes.Equal(p.Archive, archive) || !bytes.Equal(p.Prov, tc.prov) {
				t.Fatalf("got %+v, %v", p, err)
			}
		})
	}
}
