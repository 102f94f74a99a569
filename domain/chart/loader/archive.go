package loader

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// ErrNotArchive matches (errors.Is) the error for input that is not
// gzip-compressed; its text is gzip's, as in Helm.
var ErrNotArchive = errors.New("not a gzipped archive")

type notArchiveError struct{ err error }

func (e notArchiveError) Error() string        { return e.err.Error() }
func (e notArchiveError) Unwrap() error        { return e.err }
func (e notArchiveError) Is(target error) bool { return target == ErrNotArchive }

var drivePath = regexp.MustCompile(`^[a-zA-Z]:/`)

// LoadArchive reads a chart from a .tgz stream.
func LoadArchive(r io.Reader, limits Limits) (*chart.Chart, error) {
	files, err := ArchiveFiles(r, limits)
	if err != nil {
		return nil, err
	}
	return LoadFiles(files, limits)
}

// ArchiveFiles reads the files of a chart archive, dropping the archive's top
// directory. Paths that would leave the chart, links and oversize content are refused.
func ArchiveFiles(r io.Reader, limits Limits) ([]*BufferedFile, error) {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, notArchiveError{err}
	}
	defer func() { _ = zr.Close() }()

	var files []*BufferedFile
	remaining := limits.MaxChartSize
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Helm's words: the tar reader's error alone.
			return nil, err
		}
		switch hd.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue
		case tar.TypeSymlink, tar.TypeLink:
			return nil, fmt.Errorf("chart archive entry %q is a link: links are not allowed in charts", hd.Name)
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("chart archive entry %q is not a regular file", hd.Name)
		}

		sep := "/"
		if strings.ContainsRune(hd.Name, '\\') {
			sep = "\\"
		}
		parts := strings.Split(hd.Name, sep)
		name := strings.ReplaceAll(strings.Join(parts[1:], sep), sep, "/")
		if path.IsAbs(name) {
			return nil, fmt.Errorf("chart archive entry %q: chart illegally contains absolute paths", hd.Name)
		}
		name = path.Clean(name)
		switch {
		case name == ".":
			return nil, fmt.Errorf("chart illegally contains content outside the base directory: %q", hd.Name)
		case strings.HasPrefix(name, ".."):
			// As in Helm, any name starting with ".." is refused, "..data" included.
			return nil, fmt.Errorf("chart archive entry %q: chart illegally references parent directory", hd.Name)
		case drivePath.MatchString(name):
			return nil, fmt.Errorf("chart archive entry %q: chart contains illegally named files", hd.Name)
		case parts[0] == "Chart.yaml":
			return nil, errors.New("chart yaml not in base directory")
		}
		if hd.Size > remaining {
			return nil, limits.archiveTooLarge()
		}
		if limits.fileTooLarge(hd.Size) {
			return nil, fmt.Errorf("decompressed chart file %q is larger than the maximum file size %d", hd.Name, limits.MaxFileSize)
		}
		var buf bytes.Buffer
		n, err := io.Copy(&buf, io.LimitReader(tr, remaining))
		if err != nil {
			return nil, err
		}
		remaining -= n
		if n < hd.Size || remaining <= 0 {
			return nil, limits.archiveTooLarge()
		}
		files = append(files, &BufferedFile{Name: name, Data: bytes.TrimPrefix(buf.Bytes(), utf8BOM)})
	}
	if len(files) == 0 {
		return nil, errors.New("no files in chart archive")
	}
	return files, nil
}

// archiveTooLarge is the error for an archive over the cap per chart, in the
// dialect's words.
func (l Limits) archiveTooLarge() error {
	if l.Dialect.IsHelm4() {
		return fmt.Errorf("decompressed chart is larger than the maximum size %d", l.MaxChartSize)
	}
	return fmt.Errorf("decompressed chart is larger than the maximum file size %d", l.MaxChartSize)
}
