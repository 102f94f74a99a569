// Package archive writes charts as reproducible .tgz archives: the same chart always
// gives the same bytes, whatever the clock, the umask or the order files were read in.
package archive

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// ModTime is the modification time of every entry. A fixed time keeps archives
// reproducible; 1980-01-01 stays valid for tools that reject the Unix epoch.
var modTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// gzipExtra and gzipComment mark the archive as a chart archive, as Helm's do, so
// tools that sniff for Helm's marker accept ours.
var gzipExtra = []byte("+aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo=")

const gzipComment = "Helm"

// ErrInvalidName is returned for chart names that would place files outside the archive's top directory.
var ErrInvalidName = errors.New("invalid chart name")

// FileName is the archive's conventional name, NAME-VERSION.tgz.
func FileName(c *chart.Chart) string {
	return fmt.Sprintf("%s-%s.tgz", c.Name(), c.Metadata.Version)
}

// Write writes c (and its subcharts, under charts/) as a gzipped tar to w.
func Write(w io.Writer, c *chart.Chart) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("chart validation: %w", err)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	// Name and ModTime stay empty: the header would otherwise vary with the clock.
	zw.Extra = gzipExtra
	zw.Comment = gzipComment
	zw.OS = 255 // unknown, so the bytes do not depend on the build platform
	tw := tar.NewWriter(zw)
	if err := writeChart(tw, c, ""); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

type entry struct {
	name string
	data []byte
}

// Entries returns the files Write stores for c, in archive order.
func Entries(c *chart.Chart) ([]string, error) {
	var names []string
	err := walk(c, "", func(e entry) error { names = append(names, e.name); return nil })
	return names, err
}

func writeChart(tw *tar.Writer, c *chart.Chart, prefix string) error {
	return walk(c, prefix, func(e entry) error {
		hd := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.name,
			Mode:     0o644,
			Size:     int64(len(e.data)),
			ModTime:  modTime,
			Format:   tar.FormatPAX,
		}
		if len(e.name) <= 100 {
			hd.Format = tar.FormatUSTAR
		}
		if err := tw.WriteHeader(hd); err != nil {
			return fmt.Errorf("write %s: %w", e.name, err)
		}
		_, err := tw.Write(e.data)
		return err
	})
}

// walk yields a chart's entries: Chart.yaml first (readers that peek at the first
// entry find the metadata), then every other file sorted by path, then subcharts sorted by name.
func walk(c *chart.Chart, prefix string, yield func(entry) error) error {
	return walkAs(c, c.Name(), prefix, yield)
}

// walkAs is walk with the chart stored in directory dir of prefix.
func walkAs(c *chart.Chart, dir, prefix string, yield func(entry) error) error {
	name := c.Name()
	if name == "" || name == "." || name == ".." || name != path.Base(name) || dir != path.Base(dir) || dir == ".." {
		return fmt.Errorf("%w %q", ErrInvalidName, name)
	}
	base := path.Join(prefix, dir)

	md := *c.Metadata
	if md.APIVersion == chart.APIVersionV1 {
		// v1 charts keep dependencies in requirements.yaml, which travels among the files.
		md.Dependencies = nil
	}
	cdata, err := yaml.Marshal(&md)
	if err != nil {
		return fmt.Errorf("marshal Chart.yaml: %w", err)
	}
	if err := yield(entry{path.Join(base, "Chart.yaml"), cdata}); err != nil {
		return err
	}

	var rest []entry
	if c.Metadata.APIVersion == chart.APIVersionV2 && c.Lock != nil {
		ldata, err := yaml.Marshal(c.Lock)
		if err != nil {
			return fmt.Errorf("marshal Chart.lock: %w", err)
		}
		rest = append(rest, entry{path.Join(base, "Chart.lock"), ldata})
	}
	for _, f := range c.Raw {
		if f.Name == "values.yaml" {
			rest = append(rest, entry{path.Join(base, "values.yaml"), f.Data})
			break
		}
	}
	if c.Schema != nil {
		if !json.Valid(c.Schema) {
			return fmt.Errorf("invalid JSON in %s", path.Join(base, "values.schema.json"))
		}
		rest = append(rest, entry{path.Join(base, "values.schema.json"), c.Schema})
	}
	for _, group := range [][]*chart.File{c.Templates, c.Files} {
		for _, f := range group {
			clean := path.Clean(f.Name)
			if path.IsAbs(clean) || clean == ".." || len(clean) > 2 && clean[:3] == "../" {
				return fmt.Errorf("file %q of chart %s would be stored outside the chart", f.Name, name)
			}
			rest = append(rest, entry{path.Join(base, clean), f.Data})
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].name < rest[j].name })
	for i := 1; i < len(rest); i++ {
		if rest[i].name == rest[i-1].name {
			return fmt.Errorf("chart %s holds %s twice", name, rest[i].name)
		}
	}
	for _, e := range rest {
		if err := yield(e); err != nil {
			return err
		}
	}

	deps := append([]*chart.Chart(nil), c.Dependencies()...)
	sort.SliceStable(deps, func(i, j int) bool {
		if deps[i].Name() != deps[j].Name() {
			return deps[i].Name() < deps[j].Name()
		}
		return deps[i].Metadata.Version < deps[j].Metadata.Version
	})
	used := map[string]bool{}
	for _, d := range deps {
		// Subcharts sharing a name (aliased dependencies at different versions) each get
		// their own directory; the loader names subcharts by Chart.yaml, not by directory.
		dir := d.Name()
		for i := 1; used[dir]; i++ {
			dir = fmt.Sprintf("%s-%s", d.Name(), d.Metadata.Version)
			if i > 1 {
				dir = fmt.Sprintf("%s-%s-%d", d.Name(), d.Metadata.Version, i)
			}
		}
		used[dir] = true
		if err := walkAs(d, dir, path.Join(base, "charts"), yield); err != nil {
			return fmt.Errorf("save %s: %w", d.ChartFullPath(), err)
		}
	}
	return nil
}
