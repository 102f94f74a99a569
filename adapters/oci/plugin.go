package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// PluginArtifactType marks a Helm 4 plugin artifact: its manifest's
// artifactType, or its config's media type in manifests without one.
const PluginArtifactType = "application/vnd.helm.plugin.v1+json"

// PulledPlugin is a plugin artifact: its archive (layer NAME-VERSION.tgz)
// and the archive's .prov (layer NAME-VERSION.tgz.prov), nil when absent.
type PulledPlugin struct {
	Ref, Digest string
	Archive     []byte
	Prov        []byte
}

// PluginName is the plugin an oci:// reference names: its repository's last
// element, as in Helm 4.
func PluginName(ref string) (string, error) {
	pr, err := ParseReference(ref)
	if err != nil {
		return "", err
	}
	name := pr.Repository[strings.LastIndex(pr.Repository, "/")+1:]
	if name == "" {
		return "", fmt.Errorf("invalid OCI reference: cannot determine plugin name from repository %s", pr.Repository)
	}
	return name, nil
}

// PullPlugin downloads the plugin artifact ref names (a tag or digest is
// required), checked as Helm 4 checks it, in its words.
func (c *Client) PullPlugin(ctx context.Context, ref string) (*PulledPlugin, error) {
	name, err := PluginName(ref)
	if err != nil {
		return nil, err
	}
	pr, _ := ParseReference(ref)
	target := pr.Digest
	if target == "" {
		target = pr.Tag
	}
	if target == "" {
		return nil, fmt.Errorf("invalid OCI reference %q: a tag or digest is required", ref)
	}
	r, err := c.repository(pr.Repository)
	if err != nil {
		return nil, err
	}
	mdesc, mdata, err := fetchTarget(ctx, r, target)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(mdata, &m); err != nil {
		return nil, fmt.Errorf("unable to parse manifest: %w", err)
	}
	switch {
	case m.ArtifactType != "" && m.ArtifactType != PluginArtifactType:
		return nil, fmt.Errorf("expected artifact type %s, got %s", PluginArtifactType, m.ArtifactType)
	case m.ArtifactType == "" && m.Config.MediaType != PluginArtifactType:
		return nil, fmt.Errorf("expected config media type %s for legacy compatibility, got %s", PluginArtifactType, m.Config.MediaType)
	}
	var archive, prov *ocispec.Descriptor
	for i := range m.Layers {
		title := m.Layers[i].Annotations[ocispec.AnnotationTitle]
		if !strings.HasPrefix(title, name+"-") {
			continue
		}
		switch {
		case archive == nil && strings.HasSuffix(title, ".tgz"):
			archive = &m.Layers[i]
		case prov == nil && strings.HasSuffix(title, ".tgz.prov"):
			prov = &m.Layers[i]
		}
	}
	if archive == nil {
		return nil, fmt.Errorf("required layer matching pattern %s-VERSION.tgz not found in manifest", name)
	}
	out := &PulledPlugin{Ref: pr.Repository + ":" + target, Digest: mdesc.Digest.String()}
	if out.Archive, err = fetchBlob(ctx, r, *archive); err != nil {
		return nil, fmt.Errorf("unable to retrieve plugin data with digest %s: %w", archive.Digest, err)
	}
	if prov != nil {
		if out.Prov, err = fetchBlob(ctx, r, *prov); err != nil {
			return nil, fmt.Errorf("unable to retrieve provenance data with digest %s: %w", prov.Digest, err)
		}
	}
	return out, nil
}
