package chartsource

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// Expand unpacks a chart archive into dir/NAME, NAME being the chart's name from its
// Chart.yaml. Nothing is written outside dir/NAME: the name and every entry are
// checked first, the target must not exist yet, and files are created exclusively.
// Files are streamed to disk one at a time and subchart archives are copied as they
// are, never loaded: like Helm, expanding does not open what the chart nests.
func Expand(dir string, archive []byte) (string, error) {
	limits := loader.DefaultLimits()
	var chartYAML []byte
	err := loader.WalkArchive(bytes.NewReader(archive), limits, func(name string, body io.Reader) error {
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("archive entry %q would be written outside the chart", name)
		}
		if name != "Chart.yaml" {
			return nil
		}
		var err error
		chartYAML, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		return "", err
	}
	var top []*loader.BufferedFile
	if chartYAML != nil {
		top = append(top, &loader.BufferedFile{Name: "Chart.yaml", Data: bytes.TrimPrefix(chartYAML, []byte("\uFEFF"))})
	}
	c, err := loader.LoadFiles(top, limits)
	if err != nil {
		return "", err
	}
	name := c.Name()
	if !filepath.IsLocal(name) || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("chart name %q is not a valid directory name", name)
	}
	target := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(target, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("failed to untar: a file or directory with the name %s already exists", target)
		}
		return "", err
	}
	err = loader.WalkArchive(bytes.NewReader(archive), limits, func(name string, body io.Reader) error {
		return writeNew(filepath.Join(target, filepath.FromSlash(name)), body)
	})
	if err != nil {
		return "", err
	}
	return target, nil
}

// writeNew copies body, less a leading UTF-8 byte order mark (as the loader drops
// it), into a new file p; it refuses to follow anything already at p.
func writeNew(p string, body io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	br := bufio.NewReader(body)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		_, _ = br.Discard(3)
	}
	if _, err := io.Copy(fh, br); err != nil {
		_ = fh.Close()
		return err
	}
	return fh.Close()
}
