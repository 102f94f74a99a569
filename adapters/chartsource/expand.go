package chartsource

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// Expand unpacks a chart archive into dir/NAME, NAME being the chart's name from its
// Chart.yaml. Nothing is written outside dir/NAME: the name and every entry are
// checked first, the target must not exist yet, and files are created exclusively.
func Expand(dir string, archive []byte) (string, error) {
	limits := loader.DefaultLimits()
	files, err := loader.ArchiveFiles(bytes.NewReader(archive), limits)
	if err != nil {
		return "", err
	}
	c, err := loader.LoadFiles(files, limits)
	if err != nil {
		return "", err
	}
	name := c.Name()
	if !filepath.IsLocal(name) || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("chart name %q is not a valid directory name", name)
	}
	target := filepath.Join(dir, name)
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.Name)) {
			return "", fmt.Errorf("archive entry %q would be written outside %s", f.Name, target)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(target, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("failed to untar: a file or directory with the name %s already exists", target)
		}
		return "", err
	}
	for _, f := range files {
		p := filepath.Join(target, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		// Refuse to follow anything already at p: only new files are written.
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return "", fmt.Errorf("write %s: %w", p, err)
		}
		if _, err := fh.Write(f.Data); err != nil {
			_ = fh.Close()
			return "", err
		}
		if err := fh.Close(); err != nil {
			return "", err
		}
	}
	return target, nil
}
