package ports

import "context"

// PostRenderer rewrites rendered manifests before they are printed or applied,
// as Helm's --post-renderer does: it receives one YAML stream and returns the
// stream to use instead. What the stream holds is the dialect's (Helm 4: every
// template, hooks included, each document annotated with its file; Helm 3: the
// release's manifest text, without hooks); the domain decides, the adapter runs.
type PostRenderer interface {
	PostRender(ctx context.Context, stream string) (string, error)
}

// YAMLCodec reads and writes YAML streams of resources the way Helm 4 does
// around a post-renderer (kustomize's kyaml reader and writer), so that what
// the post-renderer receives and what Helm 4 keeps of its output have the same
// bytes.
type YAMLCodec interface {
	// Parse reads a stream into its documents, each a mapping; it fails on
	// malformed YAML and on a document of another kind.
	Parse(stream string) ([]YAMLDocument, error)
	// Format writes documents as one stream, separated by "---" lines.
	Format(docs []YAMLDocument) (string, error)
}

// YAMLDocument is one document of a YAMLCodec's stream.
type YAMLDocument interface {
	// Annotations are metadata.annotations; it fails when metadata is not a
	// mapping of the expected shape.
	Annotations() (map[string]string, error)
	// SetAnnotation sets metadata.annotations[key], creating what is missing.
	SetAnnotation(key, value string) error
	// ClearAnnotation removes metadata.annotations[key], and annotations when
	// that leaves it empty.
	ClearAnnotation(key string) error
}
