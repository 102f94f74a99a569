package loader_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

const okChartYAML = "apiVersion: v2\nname: chart\nversion: 0.1.0\n"

func TestLoadArchiveRefusesHostileEntries(t *testing.T) {
	// Each archive holds a valid chart plus one hostile entry (after it, so the
	// loader must look at every entry, not stop at the first valid one).
	tests := map[string]struct {
		entry   entry
		wantErr string
	}{
		"parent directory": {
			entry:   entry{Name: "../../malformed-helm-test", Body: "hello: world"},
			wantErr: `chart archive entry "../../malformed-helm-test": chart illegally references parent directory`,
		},
		"parent directory after a clean": {
			entry:   entry{Name: "/foo/../../malformed-helm-test", Body: "hello: world"},
			wantErr: `chart archive entry "/foo/../../malformed-helm-test": chart illegally references parent directory`,
		},
		"rooted parent directory": {
			entry:   entry{Name: "/../../malformed-helm-test", Body: "hello: world"},
			wantErr: `chart archive entry "/../../malformed-helm-test": chart illegally references parent directory`,
		},
		"dot then parent directory": {
			entry:   entry{Name: "./../../malformed-helm-test", Body: "hello: world"},
			wantErr: `chart archive entry "./../../malformed-helm-test": chart illegally references parent directory`,
		},
		"parent directory inside the chart": {
			entry:   entry{Name: "chart/templates/../../../x.yaml", Body: "x"},
			wantErr: `chart archive entry "chart/templates/../../../x.yaml": chart illegally references parent directory`,
		},
		"name starting with two dots": {
			entry:   entry{Name: "chart/..data", Body: "x"},
			wantErr: `chart archive entry "chart/..data": chart illegally references parent directory`,
		},
		"backslash parent directory": {
			entry:   entry{Name: `\..\..\foo`, Body: "x"},
			wantErr: `chart archive entry "\\..\\..\\foo": chart illegally references parent directory`,
		},
		"dot": {
			entry:   entry{Name: "./.", Body: "x"},
			wantErr: `chart illegally contains content outside the base directory: "./."`,
		},
		"rooted dot": {
			entry:   entry{Name: "/./.", Body: "x"},
			wantErr: `chart illegally contains content outside the base directory: "/./."`,
		},
		"file beside the top directory": {
			entry:   entry{Name: "missing-leading-slash", Body: "x"},
			wantErr: `chart illegally contains content outside the base directory: "missing-leading-slash"`,
		},
		"absolute path": {
			entry:   entry{Name: "//foo", Body: "x"},
			wantErr: `chart archive entry "//foo": chart illegally contains absolute paths`,
		},
		"absolute path, three slashes": {
			entry:   entry{Name: "///etc/passwd", Body: "x"},
			wantErr: `chart archive entry "///etc/passwd": chart illegally contains absolute paths`,
		},
		"absolute path with backslashes": {
			entry:   entry{Name: `\\foo`, Body: "x"},
			wantErr: `chart archive entry "\\\\foo": chart illegally contains absolute paths`,
		},
		"Windows device path": {
			entry:   entry{Name: `\\?\Some\windows\magic`, Body: "x"},
			wantErr: `chart archive entry "\\\\?\\Some\\windows\\magic": chart illegally contains absolute paths`,
		},
		"Windows drive path with backslashes": {
			entry:   entry{Name: `\.\c:\\foo`, Body: "x"},
			wantErr: `chart archive entry "\\.\\c:\\\\foo": chart contains illegally named files`,
		},
		"Windows drive path with slashes": {
			entry:   entry{Name: "/./c://foo", Body: "x"},
			wantErr: `chart archive entry "/./c://foo": chart contains illegally named files`,
		},
		"symbolic link": {
			entry:   entry{Name: "chart/templates/passwd.yaml", Type: tar.TypeSymlink, Linkname: "/etc/passwd"},
			wantErr: `chart archive entry "chart/templates/passwd.yaml" is a link: links are not allowed in charts`,
		},
		"relative symbolic link": {
			entry:   entry{Name: "chart/values.yaml", Type: tar.TypeSymlink, Linkname: "../../values.yaml"},
			wantErr: `chart archive entry "chart/values.yaml" is a link: links are not allowed in charts`,
		},
		"hard link": {
			entry:   entry{Name: "chart/templates/copy.yaml", Type: tar.TypeLink, Linkname: "chart/Chart.yaml"},
			wantErr: `chart archive entry "chart/templates/copy.yaml" is a link: links are not allowed in charts`,
		},
		"character device": {
			entry:   entry{Name: "chart/templates/null.yaml", Type: tar.TypeChar},
			wantErr: `chart archive entry "chart/templates/null.yaml" is not a regular file`,
		},
		"named pipe": {
			entry:   entry{Name: "chart/fifo", Type: tar.TypeFifo},
			wantErr: `chart archive entry "chart/fifo" is not a regular file`,
		},
		"Chart.yaml as the top directory": {
			entry:   entry{Name: "Chart.yaml/values.yaml", Body: "x"},
			wantErr: "chart yaml not in base directory",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			data := tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}, tc.entry)
			files, err := loader.ArchiveFiles(bytes.NewReader(data), defaultLimits())
			if err == nil {
				t.Fatalf("ArchiveFiles accepted the entry: %v", fileNames(files))
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
			if _, err := loader.LoadArchive(bytes.NewReader(data), defaultLimits()); err == nil || err.Error() != tc.wantErr {
				t.Errorf("LoadArchive error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func fileNames(fs []*loader.BufferedFile) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestLoadArchiveNamesRelativeToTopDirectory(t *testing.T) {
	tests := map[string]struct {
		entries   []entry
		wantFiles []string
		wantErr   string
	}{
		"leading slash is dropped with the top directory": {
			entries: []entry{{Name: "/Chart.yaml", Body: "hello: world"}},
			// "/Chart.yaml" is top directory "" and file Chart.yaml.
			wantFiles: []string{"Chart.yaml"},
			wantErr:   "validation: chart.metadata.name is required",
		},
		"file under another top directory": {
			entries:   []entry{{Name: "files/whatever.yaml", Body: "hello: world"}},
			wantFiles: []string{"whatever.yaml"},
			wantErr:   "Chart.yaml file is missing",
		},
		"drive letter as the top directory": {
			entries:   []entry{{Name: `c:\Chart.yaml`, Body: "hello: world"}},
			wantFiles: []string{"Chart.yaml"},
			wantErr:   "validation: chart.metadata.name is required",
		},
		"leading slash, top directory and file": {
			entries:   []entry{{Name: "/missing-leading-slash", Body: "x"}},
			wantFiles: []string{"missing-leading-slash"},
			wantErr:   "Chart.yaml file is missing",
		},
		"directories and pax headers are skipped": {
			entries: []entry{
				{Name: "pax_global_header", Type: tar.TypeXGlobalHeader},
				{Name: "chart/", Type: tar.TypeDir},
				{Name: "chart/templates/", Type: tar.TypeDir},
				{Name: "chart/Chart.yaml", Body: okChartYAML},
				{Name: "chart/templates/./a.yaml", Body: "a"},
				{Name: "chart/dir//b.txt", Body: "b"},
			},
			wantFiles: []string{"Chart.yaml", "templates/a.yaml", "dir/b.txt"},
		},
		"empty file": {
			entries:   []entry{{Name: "chart/Chart.yaml", Body: okChartYAML}, {Name: "dir/empty"}},
			wantFiles: []string{"Chart.yaml", "empty"},
		},
		"byte order marks are trimmed": {
			entries:   []entry{{Name: "chart/Chart.yaml", Body: "\xEF\xBB\xBF" + okChartYAML}},
			wantFiles: []string{"Chart.yaml"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			data := tgz(t, tc.entries...)
			files, err := loader.ArchiveFiles(bytes.NewReader(data), defaultLimits())
			if err != nil {
				t.Fatalf("ArchiveFiles: %v", err)
			}
			if got := fileNames(files); !reflect.DeepEqual(got, tc.wantFiles) {
				t.Errorf("files = %v, want %v", got, tc.wantFiles)
			}
			for _, f := range files {
				if bytes.HasPrefix(f.Data, []byte("\xEF\xBB\xBF")) {
					t.Errorf("%s keeps its BOM", f.Name)
				}
			}
			_, err = loader.LoadArchive(bytes.NewReader(data), defaultLimits())
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("LoadArchive error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestLoadArchiveLimits(t *testing.T) {
	zeros := strings.Repeat("\x00", 1<<20)
	bomb := tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}, entry{Name: "chart/zeros", Body: zeros})
	if len(bomb) > 8<<10 {
		t.Fatalf("the bomb is %d bytes compressed, want a small one", len(bomb))
	}
	limits := loader.Limits{MaxChartSize: 64 << 10, MaxFileSize: 2 << 20}

	tests := map[string]struct {
		data    []byte
		limits  loader.Limits
		wantErr string
	}{
		"file one byte over the file limit": {
			data:    tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}, entry{Name: "chart/values.yaml", Body: strings.Repeat("a", 65)}),
			limits:  loader.Limits{MaxChartSize: 1 << 20, MaxFileSize: 64},
			wantErr: `decompressed chart file "chart/values.yaml" is larger than the maximum file size 64`,
		},
		"file at the file limit": {
			data:   tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}, entry{Name: "chart/values.yaml", Body: "a: " + strings.Repeat("b", 61)}),
			limits: loader.Limits{MaxChartSize: 1 << 20, MaxFileSize: 64},
		},
		"decompression bomb": {
			data:    bomb,
			limits:  limits,
			wantErr: "decompressed chart is larger than the maximum file size 65536",
		},
		"many small files over the chart limit": {
			data: tgz(t,
				entry{Name: "chart/Chart.yaml", Body: okChartYAML},
				entry{Name: "chart/a", Body: strings.Repeat("a", 40)},
				entry{Name: "chart/b", Body: strings.Repeat("b", 40)},
			),
			limits:  loader.Limits{MaxChartSize: 100, MaxFileSize: 100},
			wantErr: "decompressed chart is larger than the maximum file size 100",
		},
		"chart exactly at the chart limit": {
			// Helm refuses a chart that uses the whole budget: nothing may remain.
			data:    tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}),
			limits:  loader.Limits{MaxChartSize: int64(len(okChartYAML)), MaxFileSize: 100},
			wantErr: fmt.Sprintf("decompressed chart is larger than the maximum file size %d", len(okChartYAML)),
		},
		"chart one byte under the chart limit": {
			data:   tgz(t, entry{Name: "chart/Chart.yaml", Body: okChartYAML}),
			limits: loader.Limits{MaxChartSize: int64(len(okChartYAML)) + 1, MaxFileSize: 100},
		},
		"bomb inside a subchart archive": {
			data: tgz(t,
				entry{Name: "chart/Chart.yaml", Body: okChartYAML},
				entry{Name: "chart/charts/bomb-0.1.0.tgz", Body: string(tgz(t,
					entry{Name: "bomb/Chart.yaml", Body: "apiVersion: v2\nname: bomb\nversion: 0.1.0\n"},
					entry{Name: "bomb/zeros", Body: zeros},
				))},
			),
			limits:  limits,
			wantErr: "error unpacking subchart bomb-0.1.0.tgz in chart: decompressed chart is larger than the maximum file size 65536",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := loader.LoadArchive(bytes.NewReader(tc.data), tc.limits)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("LoadArchive error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestLoadArchiveNotAnArchive(t *testing.T) {
	good := smallChart(t, "x", "1.0.0")
	tests := map[string]struct {
		data       []byte
		wantErr    string
		notArchive bool
	}{
		"empty input": {
			data: nil, wantErr: "EOF", notArchive: true,
		},
		"plain text": {
			data: []byte("apiVersion: v2\nname: x\n"), wantErr: "gzip: invalid header", notArchive: true,
		},
		"gzip magic only": {
			data: []byte{0x1f, 0x8b, 0x08}, wantErr: "unexpected EOF", notArchive: true,
		},
		"gzip but not tar": {
			data: gzipText(t, "this is not a tar stream at all, just text that goes on"), wantErr: "unexpected EOF",
		},
		"truncated archive": {
			data: good[:len(good)/2], wantErr: "unexpected EOF",
		},
		"empty tar": {
			data: tgz(t), wantErr: "no files in chart archive",
		},
		"only directories": {
			data: tgz(t, entry{Name: "x/", Type: tar.TypeDir}, entry{Name: "x/templates/", Type: tar.TypeDir}), wantErr: "no files in chart archive",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := loader.LoadArchive(bytes.NewReader(tc.data), defaultLimits())
			if err == nil {
				t.Fatalf("LoadArchive loaded %v", c.Name())
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q, want %q", err, tc.wantErr)
			}
			if got := errors.Is(err, loader.ErrNotArchive); got != tc.notArchive {
				t.Errorf("errors.Is(err, ErrNotArchive) = %v, want %v", got, tc.notArchive)
			}
		})
	}
}

func gzipText(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
