package repo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// IndexDirectory builds an index of the chart archives in dir and its immediate
// subdirectories, with URLs relative to baseURL (or to the index itself when empty).
// A chart that does not load or whose version is not SemVer is an error naming the file.
func IndexDirectory(dir, baseURL string, now time.Time) (*domrepo.Index, error) {
	top, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil {
		return nil, err
	}
	nested, err := filepath.Glob(filepath.Join(dir, "*", "*.tgz"))
	if err != nil {
		return nil, err
	}
	files := append(top, nested...)
	sort.Strings(files)
	idx := domrepo.NewIndex(now.UTC())
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		c, err := loader.LoadArchive(bytes.NewReader(data), loader.DefaultLimits())
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", f, err)
		}
		if idx.Has(c.Name(), c.Metadata.Version) {
			return nil, fmt.Errorf("index %s: chart %s version %s is already indexed from another file", f, c.Name(), c.Metadata.Version)
		}
		url := filepath.ToSlash(rel)
		if baseURL != "" {
			url, err = domrepo.ResolveURL(baseURL, url)
			if err != nil {
				return nil, err
			}
		}
		if err := idx.Add(c.Metadata, url, "", domrepo.Digest(data), now.UTC()); err != nil {
			return nil, err
		}
	}
	idx.SortEntries()
	return idx, nil
}
