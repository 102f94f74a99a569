// Package chartsource loads charts from the local file system.
package chartsource

import (
	"bytes"
	"compress/gzip"
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
	// NoDetect loads a chart as Helm 4's `show` does, with its chart v2 loader: no reading
	// of the API version first (a directory without Chart.yaml is "Chart.yaml file is
	// missing", and a v3 chart is shown), values.yaml still by Limits.Dialect's rules.
	NoDetect bool
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
		limits := l.Limits
		if limits.Dialect.IsHelm4() && !l.NoDetect {
			v3, err := helm4DirAPIVersion(abs)
			if err != nil {
				return nil, err
			}
			limits.ChartV3 = v3
		}
		// Loader errors name the file and field already, in Helm's words.
		return loader.LoadDir(os.DirFS(abs), limits)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if l.Limits.Dialect.IsHelm4() && !l.NoDetect {
		return loadArchiveHelm4(path, f, l.Limits)
	}
	c, err := loader.LoadArchive(f, l.Limits)
	if errors.Is(err, loader.ErrNotArchive) {
		return nil, notArchiveError(path, err)
	}
	return c, err
}

// Helm 4 reads a chart's API version before loading it and loads only the
// versions it knows: v1 and v2 (or none), and v3, which it then refuses to install.

// helm4DirAPIVersion checks a chart directory as Helm 4 does before loading it, and
// reports whether Helm 4 reads it with its chart v3 loader.
func helm4DirAPIVersion(dir string) (bool, error) {
	name := filepath.Join(dir, "Chart.yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		return false, fmt.Errorf("unable to detect chart at %s: %w", name, err)
	}
	return helm4APIVersion(data)
}

// loadArchiveHelm4 loads an archive as Helm 4 does: any problem reading the
// archive itself, other than not being gzip, is "unable to load chart archive";
// the API version is checked before the chart is loaded.
func loadArchiveHelm4(path string, f io.Reader, limits loader.Limits) (*chart.Chart, error) {
	files, err := loader.ArchiveFiles(f, limits)
	if errors.Is(err, loader.ErrNotArchive) {
		// What does not look like gzip is refused as Helm 3 does; what does is
		// read, and fails, as any other archive.
		if nae := notArchiveError(path, err); nae != err {
			return nil, nae
		}
		if errors.Is(err, gzip.ErrHeader) {
			return nil, fmt.Errorf("file '%s' does not appear to be a valid chart file (details: %w)", path, err)
		}
	}
	if errors.Is(err, loader.ErrEntryNamesTooLarge) {
		// A limit of our own: Helm has no words for it, so it is named.
		return nil, fmt.Errorf("unable to load chart archive: %w", err)
	}
	if err != nil {
		return nil, errors.New("unable to load chart archive")
	}
	found := false
	for _, file := range files {
		if file.Name == "Chart.yaml" {
			v3, err := helm4APIVersion(file.Data)
			if err != nil {
				return nil, err
			}
			limits.ChartV3, found = v3, true
			break
		}
	}
	if !found {
		return nil, errors.New("unable to detect chart version, no Chart.yaml found")
	}
	return loader.LoadFiles(files, limits)
}

// helm4APIVersion checks the API version as Helm 4 does, and reports whether it is v3.
func helm4APIVersion(chartYAML []byte) (bool, error) {
	v, err := loader.APIVersion(chartYAML)
	if err != nil {
		return false, fmt.Errorf("cannot load Chart.yaml: %w", err)
	}
	switch v {
	case "", chart.APIVersionV1, chart.APIVersionV2:
		return false, nil
	case chartAPIVersionV3:
		return true, nil
	}
	return false, errors.New("unsupported chart version")
}

// chartAPIVersionV3 is the chart API version Helm 4 reads with a loader of its own.
const chartAPIVersionV3 = "v3"

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
