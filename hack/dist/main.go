// Command dist cross-compiles kubectl-chart for every platform of the Krew
// manifest, packs reproducible archives (fixed mtimes, owners and order) and
// writes the manifest again with each archive's URI and sha256:
//
//	go run ./hack/dist -manifest krew-manifest.yaml -out dist [-base-url URL] [-commit C] [-mtime UNIX]
//
// The version is the manifest's spec.version, so the manifest is the single
// place a release bumps. The output manifest is named after metadata.name
// (dist/chart.yaml), as Krew's validator requires.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

func main() {
	manifest := flag.String("manifest", "krew-manifest.yaml", "the top-level Krew manifest")
	out := flag.String("out", "dist", "output directory")
	baseURL := flag.String("base-url", "", "URL the archives are served from (default: keep the manifest's URIs)")
	commit := flag.String("commit", "unknown", "commit stamped into the binary")
	mtime := flag.Int64("mtime", 0, "modification time of archive entries (unix seconds)")
	pkg := flag.String("pkg", "./cmd/kubectl-chart", "package to build")
	src := flag.String("src", ".", "module directory to build in")
	extra := flag.String("files", "LICENSE", "comma-separated files packed beside the binary")
	only := flag.String("only", "", "build just this os/arch and write no manifest (reproducibility checks)")
	serve := flag.String("serve", "", "serve this directory on 127.0.0.1 (random port, URL printed first) instead of building")
	flag.Parse()
	if *serve != "" {
		if err := serveDir(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "dist:", err)
			os.Exit(1)
		}
		return
	}
	err := run(context.Background(), config{
		manifest: *manifest, out: *out, baseURL: *baseURL, commit: *commit,
		mtime: time.Unix(*mtime, 0).UTC(), pkg: *pkg, src: *src, only: *only, files: strings.Split(*extra, ","),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

type config struct {
	manifest, out, baseURL, commit, pkg, src, only string
	mtime                                          time.Time
	files                                          []string
}

// Platform is one os/arch of the manifest.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

func (p Platform) exe() string {
	if p.OS == "windows" {
		return "kubectl-chart.exe"
	}
	return "kubectl-chart"
}

// ArchiveName is the archive's file name for a version and platform.
func ArchiveName(version string, p Platform) string {
	ext := ".tar.gz"
	if p.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("kubectl-chart_%s_%s_%s%s", version, p.OS, p.Arch, ext)
}

func run(ctx context.Context, c config) error {
	m, err := ReadManifest(c.manifest)
	if err != nil {
		return err
	}
	version, err := Version(m)
	if err != nil {
		return err
	}
	platforms, err := Platforms(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kubectl-chart-dist-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	sums := map[Platform]string{}
	for _, p := range platforms {
		if c.only != "" && c.only != p.String() {
			continue
		}
		bin := filepath.Join(tmp, p.OS+"-"+p.Arch, p.exe())
		fmt.Fprintf(os.Stderr, "building %s %s\n", p, version)
		if err := Build(ctx, c.src, c.pkg, p, version, c.commit, bin); err != nil {
			return err
		}
		files := []ArchiveFile{{Name: p.exe(), Path: bin, Mode: 0o755}}
		for _, f := range c.files {
			if f != "" {
				files = append(files, ArchiveFile{Name: filepath.Base(f), Path: filepath.Join(c.src, f), Mode: 0o644})
			}
		}
		dst := filepath.Join(c.out, ArchiveName(version, p))
		if err := WriteArchive(dst, files, c.mtime); err != nil {
			return err
		}
		sum, err := FileSHA256(dst)
		if err != nil {
			return err
		}
		sums[p] = sum
		fmt.Fprintf(os.Stderr, "wrote %s %s\n", dst, sum)
	}
	if c.only != "" {
		if len(sums) == 0 {
			return fmt.Errorf("platform %s is not in %s", c.only, c.manifest)
		}
		return nil
	}
	b, err := Fill(m, c.baseURL, sums)
	if err != nil {
		return err
	}
	name, _ := m["metadata"].(map[string]any)["name"].(string)
	dst := filepath.Join(c.out, name+".yaml")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", dst)
	return nil
}

// Build cross-compiles pkg for p, statically and without local paths, in the
// workspace dir's hack/wazero-lazyinit.sh makes (wazero's initialisers lazy).
func Build(ctx context.Context, dir, pkg string, p Platform, version, commit, out string) error {
	lazy := exec.CommandContext(ctx, "bash", filepath.Join(dir, "hack", "wazero-lazyinit.sh"), dir)
	lazy.Stderr = os.Stderr
	gowork, err := lazy.Output()
	if err != nil {
		return fmt.Errorf("build %s: hack/wazero-lazyinit.sh: %w", p, err)
	}
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.commit=%s", version, commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = dir
	// Workspace mode refuses -mod (.ci/run sets -mod=mod): GOFLAGS without it.
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	cmd.Env = append(os.Environ(), "GOWORK="+strings.TrimSpace(string(gowork)), "GOFLAGS="+strings.Join(flags, " "),
		"CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s: %w", p, err)
	}
	return nil
}

// ArchiveFile is one file to pack.
type ArchiveFile struct {
	Name string // name inside the archive
	Path string // file on disk
	Mode int64
}

// WriteArchive packs files into a .tar.gz or a .zip (by dst's name) with fixed
// modification times, owners and modes, in the order given, so the same inputs
// give the same bytes.
func WriteArchive(dst string, files []ArchiveFile, mtime time.Time) (err error) {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if strings.HasSuffix(dst, ".zip") {
		return writeZip(f, files, mtime)
	}
	return writeTarGz(f, files, mtime)
}

func writeTarGz(w io.Writer, files []ArchiveFile, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.ModTime = mtime
	tw := tar.NewWriter(zw)
	for _, af := range files {
		b, err := os.ReadFile(af.Path)
		if err != nil {
			return err
		}
		h := &tar.Header{
			Name: af.Name, Mode: af.Mode, Size: int64(len(b)), ModTime: mtime,
			Typeflag: tar.TypeReg, Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("pack %s: %w", af.Name, err)
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeZip(w io.Writer, files []ArchiveFile, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, af := range files {
		b, err := os.ReadFile(af.Path)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: af.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(af.Mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("pack %s: %w", af.Name, err)
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// FileSHA256 is the hex sha256 of a file.
func FileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadManifest parses a Krew manifest generically, so that generating one
// keeps every field it does not know.
func ReadManifest(p string) (map[string]any, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	if _, ok := m["metadata"].(map[string]any)["name"].(string); !ok {
		return nil, fmt.Errorf("%s: metadata.name is missing", p)
	}
	return m, nil
}

// Version is spec.version.
func Version(m map[string]any) (string, error) {
	spec, _ := m["spec"].(map[string]any)
	v, _ := spec["version"].(string)
	if !strings.HasPrefix(v, "v") {
		return "", fmt.Errorf("spec.version %q must look like v1.2.3", v)
	}
	return v, nil
}

func platformEntries(m map[string]any) []any {
	spec, _ := m["spec"].(map[string]any)
	ps, _ := spec["platforms"].([]any)
	return ps
}

func platformOf(entry any) (Platform, error) {
	e, _ := entry.(map[string]any)
	sel, _ := e["selector"].(map[string]any)
	labels, _ := sel["matchLabels"].(map[string]any)
	os, _ := labels["os"].(string)
	arch, _ := labels["arch"].(string)
	if os == "" || arch == "" {
		return Platform{}, errors.New("every platform needs selector.matchLabels os and arch")
	}
	return Platform{OS: os, Arch: arch}, nil
}

// Platforms lists the manifest's platforms in order.
func Platforms(m map[string]any) ([]Platform, error) {
	var out []Platform
	for i, e := range platformEntries(m) {
		p, err := platformOf(e)
		if err != nil {
			return nil, fmt.Errorf("spec.platforms[%d]: %w", i, err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("spec.platforms is empty")
	}
	return out, nil
}

// Fill sets each platform's sha256 and, with a base URL, its uri; the manifest's
// own URIs must already name the right archive.
func Fill(m map[string]any, baseURL string, sums map[Platform]string) ([]byte, error) {
	version, err := Version(m)
	if err != nil {
		return nil, err
	}
	for i, entry := range platformEntries(m) {
		p, err := platformOf(entry)
		if err != nil {
			return nil, err
		}
		e := entry.(map[string]any)
		name := ArchiveName(version, p)
		uri, _ := e["uri"].(string)
		if path.Base(uri) != name {
			return nil, fmt.Errorf("spec.platforms[%d] (%s): uri %q does not end in %s", i, p, uri, name)
		}
		if baseURL != "" {
			e["uri"] = strings.TrimSuffix(baseURL, "/") + "/" + name
		}
		sum, ok := sums[p]
		if !ok {
			return nil, fmt.Errorf("no archive for %s", p)
		}
		e["sha256"] = sum
	}
	return yaml.Marshal(m)
}

// serveDir serves dir on a random loopback port and prints its URL.
func serveDir(dir string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	return http.Serve(ln, http.FileServer(http.Dir(dir)))
}
