// Package chartsource loads charts from the local file system.
package chartsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// Local loads charts from directories and .tgz archives on disk.
type Local struct {
	Limits loader.Limits
}

// NewLocal returns a Local source with Helm's size limits.
func NewLocal() Local { return Local{Limits: loader.DefaultLimits()} }

// LoadChart loads the chart at path, a directory or an archive.
func (l Local) LoadChart(_ context.Context, path string) (*chart.Chart, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("path %q not found", path)
		}
		return nil, err
	}
	if fi.IsDir() {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		// Loader errors name the file and field already, in Helm's words.
		return loader.LoadDir(os.DirFS(abs), l.Limits)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	c, err := loader.LoadArchive(f, l.Limits)
	if errors.Is(err, loader.ErrNotArchive) {
		return nil, notArchiveError(path, err)
	}
	return c, err
}

// notArchiveError says what the file looks like instead, as Helm does; a file
// that starts like gzip but is not keeps gzip's words.
func notArchiveError(path string, gzipErr error) error {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	// Helm sniffs a zero-padded 512-byte buffer, so short text files read as
	// application/octet-stream.
	head := make([]byte, 512)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	_, _ = io.ReadFull(f, head)
	contentType := http.DetectContentType(head)
	if contentType == "application/x-gzip" || bytes.HasPrefix(head, []byte{0x1f, 0x8b, 0x08}) {
		return gzipErr
	}
	if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
		return fmt.Errorf("file '%s' seems to be a YAML file, but expected a gzipped archive", path)
	}
	return fmt.Errorf("file '%s' does not appear to be a gzipped archive; got '%s'", path, contentType)
}
