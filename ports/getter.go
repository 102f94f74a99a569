package ports

import "context"

// Getter fetches the bytes behind a URL whose scheme the built-in sources do
// not know (getter plugins, e.g. s3:// or gs://). For chart references the
// bytes are a chart archive.
type Getter interface {
	Get(ctx context.Context, url string) ([]byte, error)
}
