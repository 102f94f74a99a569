package ports

import "context"

// PostRenderer rewrites rendered manifests before they are printed or applied,
// as Helm's --post-renderer does: it receives every non-hook document of the
// release as one YAML stream (the release's Manifest) and returns the stream to
// use instead. Hooks are not post-rendered, as in Helm.
type PostRenderer interface {
	PostRender(ctx context.Context, manifest string) (string, error)
}
