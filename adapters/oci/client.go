// Package oci stores and fetches charts in OCI registries, in Helm's layout, through
// oras-go: a manifest whose config is the chart's metadata and whose layer is the archive.
package oci

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// Media types of Helm charts in OCI registries.
const (
	ConfigMediaType     = "application/vnd.cncf.helm.config.v1+json"
	ChartLayerMediaType = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	LegacyChartLayer    = "application/tar+gzip"
	ProvLayerMediaType  = "application/vnd.cncf.helm.chart.provenance.v1.prov"
	// Scheme prefixes OCI references.
	Scheme = "oci://"
)

// MaxBlobSize caps blobs fetched from a registry.
const MaxBlobSize int64 = 100 << 20

// Options configure a Client.
type Options struct {
	// CredentialsFile is a docker-compatible config.json.
	CredentialsFile       string
	PlainHTTP             bool
	InsecureSkipTLSVerify bool
	CAFile                string
	CertFile, KeyFile     string
	// Username and Password, when set, are used instead of the credentials file.
	Username, Password string
	// FallbackToHTTP speaks plain HTTP to a registry that answers TLS with
	// HTTP, as Helm 3 does.
	FallbackToHTTP bool
}

// Client pushes and pulls charts.
type Client struct {
	opts  Options
	store credentials.Store
	http  *http.Client
	// fallback is Helm 3's transport, when FallbackToHTTP.
	fallback *httpFallback
}

// NewClient builds a client; the credentials file is read lazily.
func NewClient(o Options) (*Client, error) {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipTLSVerify} //nolint:gosec // the user asked for it
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", o.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	if o.CertFile != "" && o.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsCfg
	c := &Client{opts: o, http: &http.Client{Transport: retry.NewTransport(tr)}}
	if o.FallbackToHTTP {
		c.fallback = &httpFallback{base: tr}
		c.http.Transport = retry.NewTransport(c.fallback)
	}
	return c, nil
}

func (c *Client) credStore() (credentials.Store, error) {
	if c.store != nil {
		return c.store, nil
	}
	if c.opts.CredentialsFile == "" {
		c.store = credentials.NewMemoryStore()
		return c.store, nil
	}
	s, err := credentials.NewStore(c.opts.CredentialsFile, credentials.StoreOptions{AllowPlaintextPut: true})
	if err != nil {
		return nil, fmt.Errorf("read registry credentials %s: %w", c.opts.CredentialsFile, err)
	}
	c.store = s
	return s, nil
}

func (c *Client) authClient() (*auth.Client, error) {
	ac := &auth.Client{Client: c.http, Cache: auth.NewCache()}
	ac.SetUserAgent("kubectl-chart")
	if c.opts.Username != "" || c.opts.Password != "" {
		cred := auth.Credential{Username: c.opts.Username, Password: c.opts.Password}
		ac.Credential = func(context.Context, string) (auth.Credential, error) { return cred, nil }
		return ac, nil
	}
	s, err := c.credStore()
	if err != nil {
		return nil, err
	}
	ac.Credential = credentials.Credential(s)
	return ac, nil
}

func (c *Client) repository(repo string) (*remote.Repository, error) {
	r, err := remote.NewRepository(repo)
	if err != nil {
		return nil, fmt.Errorf("invalid OCI reference %q: %w", repo, err)
	}
	r.PlainHTTP = c.opts.PlainHTTP
	ac, err := c.authClient()
	if err != nil {
		return nil, err
	}
	r.Client = ac
	return r, nil
}

// Reference is a parsed oci:// chart reference.
type Reference struct {
	// Repository is host/path/name, without scheme, tag or digest.
	Repository string
	Tag        string
	Digest     string
}

// ParseReference splits oci://HOST/PATH/NAME[:TAG][@DIGEST].
func ParseReference(ref string) (Reference, error) {
	if !strings.HasPrefix(ref, Scheme) {
		return Reference{}, fmt.Errorf("invalid OCI reference %q: missing %s prefix", ref, Scheme)
	}
	raw := strings.TrimPrefix(ref, Scheme)
	r, err := registry.ParseReference(raw)
	if err != nil {
		// A reference without a tag is fine: the version comes from --version.
		r, err = registry.ParseReference(raw + ":latest")
		if err != nil {
			return Reference{}, fmt.Errorf("invalid OCI reference %q: %w", ref, err)
		}
		r.Reference = ""
	}
	out := Reference{Repository: r.Registry + "/" + r.Repository}
	if strings.Contains(raw, "@") {
		out.Digest = r.Reference
		if at := strings.Index(raw, "@"); at >= 0 {
			if head := raw[:at]; strings.LastIndex(head, ":") > strings.LastIndex(head, "/") {
				out.Tag = head[strings.LastIndex(head, ":")+1:]
			}
		}
	} else {
		out.Tag = r.Reference
	}
	return out, nil
}

// PushResult describes a pushed chart.
type PushResult struct {
	Ref    string
	Digest string
}

// Push uploads a chart archive (and its .prov, if any) to oci://HOST/PATH, as
// HOST/PATH/NAME:VERSION ('+' in versions becomes '_', as tags cannot hold it).
func (c *Client) Push(ctx context.Context, archive, prov []byte, remoteRef string) (*PushResult, error) {
	ch, err := loader.LoadArchive(bytes.NewReader(archive), loader.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("load chart to push: %w", err)
	}
	base, err := ParseReference(remoteRef)
	if err != nil {
		return nil, err
	}
	if base.Tag != "" || base.Digest != "" {
		return nil, fmt.Errorf("push reference %q must not hold a tag or digest: the chart's version is the tag", remoteRef)
	}
	repoName := base.Repository + "/" + ch.Name()
	tag := strings.ReplaceAll(ch.Metadata.Version, "+", "_")
	r, err := c.repository(repoName)
	if err != nil {
		return nil, err
	}
	configData, err := json.Marshal(ch.Metadata)
	if err != nil {
		return nil, err
	}
	push := func(mediaType string, data []byte) (ocispec.Descriptor, error) {
		d := content.NewDescriptorFromBytes(mediaType, data)
		exists, err := r.Exists(ctx, d)
		if err != nil {
			return d, fmt.Errorf("push to %s: %w", repoName, err)
		}
		if !exists {
			if err := r.Push(ctx, d, bytes.NewReader(data)); err != nil {
				return d, fmt.Errorf("push to %s: %w", repoName, err)
			}
		}
		return d, nil
	}
	configDesc, err := push(ConfigMediaType, configData)
	if err != nil {
		return nil, err
	}
	chartDesc, err := push(ChartLayerMediaType, archive)
	if err != nil {
		return nil, err
	}
	layers := []ocispec.Descriptor{chartDesc}
	if prov != nil {
		provDesc, err := push(ProvLayerMediaType, prov)
		if err != nil {
			return nil, err
		}
		layers = append(layers, provDesc)
	}
	m := ocispec.Manifest{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   ocispec.MediaTypeImageManifest,
		Config:      configDesc,
		Layers:      layers,
		Annotations: annotations(ch.Metadata),
	}
	mdata, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	// The repository's own call, not the oras package's TagBytes: linking that
	// package costs every command a millisecond of start-up (its patterns).
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, mdata)
	if err := r.PushReference(ctx, desc, bytes.NewReader(mdata), tag); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return nil, fmt.Errorf("push manifest to %s:%s: failed to tag %s: %w", repoName, tag, tag, err)
	}
	return &PushResult{Ref: repoName + ":" + tag, Digest: desc.Digest.String()}, nil
}

func annotations(md *chart.Metadata) map[string]string {
	a := map[string]string{
		ocispec.AnnotationTitle:   md.Name,
		ocispec.AnnotationVersion: md.Version,
	}
	if md.Description != "" {
		a[ocispec.AnnotationDescription] = md.Description
	}
	if md.Home != "" {
		a[ocispec.AnnotationURL] = md.Home
	}
	if len(md.Sources) > 0 {
		a[ocispec.AnnotationSource] = md.Sources[0]
	}
	return a
}

// Pulled is a chart fetched from a registry.
type Pulled struct {
	Chart    []byte
	Prov     []byte
	Ref      string
	Digest   string
	Filename string
}

// PullChart implements chartsource.OCIPuller: with withProv, the provenance
// layer too, nil when the chart has none.
func (c *Client) PullChart(ctx context.Context, ref, version string, withProv bool) (*Pulled, error) {
	return c.pull(ctx, ref, version, withProv)
}

// checkDigest refuses a reference whose digest is not the one its tag (or
// version) points to, as Helm does; a tag the registry does not hold leaves
// the digest alone to decide. It returns the digest when the tag confirmed it.
func checkDigest(ctx context.Context, r *remote.Repository, pr Reference, version string) (string, error) {
	tag := pr.Tag
	if tag == "" {
		tag = strings.ReplaceAll(version, "+", "_")
	}
	if tag == "" {
		return "", nil
	}
	desc, err := r.Resolve(ctx, tag)
	if err != nil {
		return "", nil
	}
	if desc.Digest.String() != pr.Digest {
		return "", fmt.Errorf("chart reference digest mismatch: %s is not %s", desc.Digest, pr.Digest)
	}
	return pr.Digest, nil
}

// ContentDigest is the digest Helm 4 keeps the chart ref names under in its
// content cache before downloading it: the reference's digest when a tag (in
// ref, or version) confirms it, "" when ref names no digest, no tag is given
// or the registry holds no such tag (the archive's own digest is used then).
// A tag that points elsewhere is refused, as PullChart refuses it.
func (c *Client) ContentDigest(ctx context.Context, ref, version string) (string, error) {
	pr, err := ParseReference(ref)
	if err != nil || pr.Digest == "" {
		return "", err
	}
	if err := checkVersion(pr, version); err != nil {
		return "", err
	}
	r, err := c.repository(pr.Repository)
	if err != nil {
		return "", err
	}
	return checkDigest(ctx, r, pr, version)
}

// checkVersion refuses a reference whose tag is not version (given with "+"
// or the tag's "_"), as Helm does.
func checkVersion(pr Reference, version string) error {
	if pr.Tag != "" && version != "" && pr.Tag != version && pr.Tag != strings.ReplaceAll(version, "+", "_") {
		return fmt.Errorf("chart reference and version mismatch: %s is not %s", version, pr.Tag)
	}
	return nil
}

// ArchiveFilename is the name PullChart gives a chart archive: NAME-VERSION.tgz
// from its Chart.yaml.
func ArchiveFilename(archive []byte) (string, error) {
	ch, err := loader.LoadArchive(bytes.NewReader(archive), loader.DefaultLimits())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%s.tgz", ch.Name(), ch.Metadata.Version), nil
}

// Pull fetches the chart ref names. Without a tag or digest in ref, version picks the
// tag: an exact version, or the highest tag matching a SemVer range (newest when empty).
func (c *Client) Pull(ctx context.Context, ref, version string, withProv bool) (*Pulled, error) {
	p, err := c.pull(ctx, ref, version, withProv)
	if err == nil && withProv && p.Prov == nil {
		return nil, fmt.Errorf("pull %s: the chart has no provenance layer", ref)
	}
	return p, err
}

// pull is Pull, with Prov nil when the chart has no provenance layer.
func (c *Client) pull(ctx context.Context, ref, version string, withProv bool) (*Pulled, error) {
	pr, err := ParseReference(ref)
	if err != nil {
		return nil, err
	}
	r, err := c.repository(pr.Repository)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(pr, version); err != nil {
		return nil, err
	}
	target := pr.Digest
	switch {
	case target != "":
		if _, err := checkDigest(ctx, r, pr, version); err != nil {
			return nil, err
		}
	case pr.Tag != "":
		target = pr.Tag
	default:
		target, err = c.pickTag(ctx, r, version)
		if err != nil {
			return nil, err
		}
	}
	mdesc, mdata, err := fetchTarget(ctx, r, target)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(mdata, &m); err != nil {
		return nil, fmt.Errorf("pull %s: invalid manifest: %w", ref, err)
	}
	if m.Config.MediaType != ConfigMediaType {
		return nil, fmt.Errorf("pull %s: not a chart: config media type is %q, want %q", ref, m.Config.MediaType, ConfigMediaType)
	}
	var chartDesc, provDesc *ocispec.Descriptor
	for i := range m.Layers {
		switch m.Layers[i].MediaType {
		case ChartLayerMediaType, LegacyChartLayer:
			chartDesc = &m.Layers[i]
		case ProvLayerMediaType:
			provDesc = &m.Layers[i]
		}
	}
	if chartDesc == nil {
		return nil, fmt.Errorf("pull %s: manifest has no chart layer", ref)
	}
	sep := ":"
	if target == pr.Digest {
		sep = "@"
	}
	out := &Pulled{Ref: pr.Repository + sep + target, Digest: mdesc.Digest.String()}
	if out.Chart, err = fetchBlob(ctx, r, *chartDesc); err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	if withProv && provDesc != nil {
		if out.Prov, err = fetchBlob(ctx, r, *provDesc); err != nil {
			return nil, fmt.Errorf("pull %s: %w", ref, err)
		}
	}
	if out.Filename, err = ArchiveFilename(out.Chart); err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	return out, nil
}

// fetchTarget is fetchManifest failing in Helm's words (ORAS's copy names the
// step that failed).
func fetchTarget(ctx context.Context, r *remote.Repository, target string) (ocispec.Descriptor, []byte, error) {
	desc, data, err := fetchManifest(ctx, r, target)
	if err != nil {
		return desc, nil, fmt.Errorf("failed to perform \"FetchReference\" on source: %w", err)
	}
	return desc, data, nil
}

// maxManifestSize bounds a manifest read into memory.
const maxManifestSize = 4 << 20

// fetchManifest reads the manifest reference (a tag or digest) names, as the
// oras package's FetchBytes does, without linking it (see Push).
func fetchManifest(ctx context.Context, r *remote.Repository, reference string) (ocispec.Descriptor, []byte, error) {
	desc, rc, err := r.FetchReference(ctx, reference)
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	defer func() { _ = rc.Close() }()
	if desc.Size > maxManifestSize {
		return ocispec.Descriptor{}, nil, fmt.Errorf("content size %v exceeds MaxBytes %v: %w", desc.Size, maxManifestSize, errdef.ErrSizeExceedsLimit)
	}
	// ReadAll verifies size and digest.
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	return desc, data, nil
}

func fetchBlob(ctx context.Context, r *remote.Repository, d ocispec.Descriptor) ([]byte, error) {
	if d.Size > MaxBlobSize {
		return nil, fmt.Errorf("blob %s is too large (%d bytes)", d.Digest, d.Size)
	}
	if err := d.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("blob digest %q: %w", d.Digest, err)
	}
	rc, err := r.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	// ReadAll verifies size and digest.
	return content.ReadAll(rc, d)
}

func (c *Client) pickTag(ctx context.Context, r *remote.Repository, version string) (string, error) {
	if version != "" {
		if v, err := semver.StrictNewVersion(version); err == nil {
			return strings.ReplaceAll(v.Original(), "+", "_"), nil
		}
	}
	constraint := version
	if constraint == "" {
		constraint = "*"
	}
	cons, err := semver.NewConstraint(constraint)
	if err != nil {
		return "", fmt.Errorf("invalid version constraint %q: %w", version, err)
	}
	var versions []*semver.Version
	err = r.Tags(ctx, "", func(tags []string) error {
		for _, t := range tags {
			v, err := semver.NewVersion(strings.ReplaceAll(t, "_", "+"))
			if err == nil && cons.Check(v) {
				versions = append(versions, v)
			}
		}
		return nil
	})
	if err != nil {
		// The registry client's error names the tags URL, as in Helm.
		return "", err
	}
	if len(versions) == 0 {
		return "", fmt.Errorf("could not locate a version matching %q in %s", constraint, r.Reference.Registry+"/"+r.Reference.Repository)
	}
	sort.Sort(sort.Reverse(semver.Collection(versions)))
	return strings.ReplaceAll(versions[0].Original(), "+", "_"), nil
}

// Login checks the credentials against host and stores them. It fails as
// Helm does: authenticating to "HOST": the registry's answer.
func (c *Client) Login(ctx context.Context, host, username, password string) error {
	s, err := c.credStore()
	if err != nil {
		return err
	}
	reg, err := remote.NewRegistry(host)
	if err != nil {
		return fmt.Errorf("invalid registry %q: %w", host, err)
	}
	reg.PlainHTTP = c.opts.PlainHTTP
	cred := auth.Credential{Username: username, Password: password}
	login := func() error {
		err := credentials.Login(ctx, s, reg, cred)
		if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(err.Error(), "failed to validate the credentials") {
			// ORAS's words about its ping; Helm names the ping's error alone.
			return inner
		}
		return err
	}
	reg.Client = &auth.Client{Client: c.http, Cache: auth.NewCache()}
	err = login()
	if err != nil && !reg.PlainHTTP && c.fallback != nil && c.fallback.forced.Load() {
		// The registry speaks HTTP: credentials are not sent across the
		// scheme the transport changed, so ask in HTTP from the start (Helm 3).
		reg.PlainHTTP = true
		err = login()
	}
	if err != nil {
		return fmt.Errorf("authenticating to %q: %w", host, err)
	}
	return nil
}

// Logout removes the stored credentials of host.
func (c *Client) Logout(ctx context.Context, host string) error {
	s, err := c.credStore()
	if err != nil {
		return err
	}
	// As Helm: a host without credentials is logged out of all the same.
	if err := credentials.Logout(ctx, s, host); err != nil {
		return fmt.Errorf("logout from %s: %w", host, err)
	}
	return nil
}
