package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// PullOptions downloads charts, like `helm pull`.
type PullOptions struct {
	genericiooptions.IOStreams
	chartRefFlags

	destination string
	untar       bool
	untarDir    string
	verify      bool
	prov        bool
	keyring     string
	// compat carries $KUBECTL_CHART_COMPAT: whose words a refused provenance
	// file or TLS file is reported in.
	compat compatFlags
	// plugins serve references of their getters' URL schemes.
	plugins *pluginConfig
}

// NewCmdPull builds `kubectl chart pull`.
func NewCmdPull(plugins *pluginConfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PullOptions{IOStreams: streams, plugins: plugins}
	cmd := &cobra.Command{
		Use:     "pull [chart URL | repo/chartname] [...]",
		Aliases: []string{"fetch"},
		Short:   "Download a chart from a repository and (optionally) unpack it in a local directory",
		Example: `  kubectl chart pull myrepo/nginx --version '^1.2' --untar
  kubectl chart pull oci://registry.example.com/charts/nginx --version 1.2.3`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("need at least one argument, url or repo/name of the chart")
			}
			for _, ref := range args {
				if err := o.Run(cmd.Context(), ref); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	o.AddFlags(f)
	f.StringVarP(&o.destination, "destination", "d", ".", "location to write the chart. If this and untardir are specified, untardir is appended to this")
	f.BoolVar(&o.untar, "untar", false, "if set to true, will untar the chart after downloading it")
	f.StringVar(&o.untarDir, "untardir", ".", "if untar is specified, this flag specifies the name of the directory into which the chart is expanded")
	f.BoolVar(&o.verify, "verify", false, "verify the package before using it")
	f.BoolVar(&o.prov, "prov", false, "fetch the provenance file, but don't perform verification")
	f.StringVar(&o.keyring, "keyring", "", "location of public keys used for verification")
	o.compat.addReadingCompat(f)
	return cmd
}

// pluginGetter is the getter plugin serving scheme, with the chart download's
// TLS files, credentials and connection settings, as Helm 4's pull gives them.
func (o *PullOptions) pluginGetter(scheme string) (ports.Getter, bool) {
	if o.plugins == nil {
		return nil, false
	}
	reg, err := o.plugins.load()
	if err != nil {
		return nil, false
	}
	g, ok := plugin.NewGetter(reg, plugin.Host(), scheme)
	if !ok {
		return nil, false
	}
	o.ConfigureGetter(g)
	g.AcceptHeader = plugin.ChartAccept
	return g, true
}

// Run downloads one reference.
func (o *PullOptions) Run(ctx context.Context, ref string) error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if err := o.checkTLSFiles(d); err != nil {
		return err
	}
	if !chartsource.IsRemote(ref) && o.repoURL == "" {
		return fmt.Errorf("%s is a local path: pull downloads from repositories, URLs and oci:// registries", ref)
	}
	res, err := o.resolver(o.ErrOut, d)
	if err != nil {
		return err
	}
	res.Plugins = o.pluginGetter
	var data, prov []byte
	var filename string
	if strings.HasPrefix(ref, "oci://") && o.repoURL == "" {
		oc, err := o.ociClient(d)
		if err != nil {
			return err
		}
		if data, err = o.cachedOCI(ctx, d, res, oc, ref); err != nil {
			return err
		}
		if data == nil {
			p, err := oc.Pull(ctx, ref, o.version, o.verify || o.prov)
			if err != nil {
				return err
			}
			data, prov, filename = p.Chart, p.Prov, p.Filename
			reportOCI(o.IOStreams, d, "Pulled", p.Ref, p.Digest)
		}
		// Helm names a chart pulled by digest after its digest.
		if pr, err := oci.ParseReference(ref); err == nil && pr.Digest != "" {
			filename = digestFilename(pr)
		}
	} else {
		f, err := res.Fetch(ctx, ref)
		if err != nil {
			return err
		}
		data, filename = f.Data, f.Filename
		if o.verify || o.prov {
			if prov, err = fetchProvenance(ctx, res, f, ref); err != nil {
				return err
			}
		}
	}
	if filename != filepath.Base(filename) || !filepath.IsLocal(filename) {
		return fmt.Errorf("refusing archive name %q", filename)
	}
	if o.verify {
		v, err := verifyProvenance(d, data, filename, prov, o.keyring)
		if err != nil {
			return err
		}
		for name := range v.SignedBy.Identities {
			fmt.Fprintf(o.Out, "Signed by: %s\n", name)
		}
		fmt.Fprintf(o.Out, "Using Key With Fingerprint: %X\nChart Hash Verified: %s\n", v.SignedBy.PrimaryKey.Fingerprint, v.FileHash)
	}

	if o.untar {
		dir := o.untarDir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(o.destination, dir)
		}
		if _, err := chartsource.Expand(dir, data); err != nil {
			return err
		}
		if prov != nil {
			return writeFileIn(dir, filename+".prov", prov)
		}
		return nil
	}
	// As Helm's, the destination must exist.
	if err := atomicfile.WriteLikeHelm(filepath.Join(o.destination, filename), data, 0o644); err != nil {
		return err
	}
	if prov != nil {
		return atomicfile.WriteLikeHelm(filepath.Join(o.destination, filename+".prov"), prov, 0o644)
	}
	return nil
}

// cachedOCI returns the chart an OCI reference names from Helm 4's content
// cache, where Helm 4's pull reads it (a digest its tag confirms; without
// provenance); nil when it is to be pulled.
func (o *PullOptions) cachedOCI(ctx context.Context, d dialect.Dialect, res *chartsource.Resolver, oc *oci.Client, ref string) ([]byte, error) {
	if !d.IsHelm4() || o.verify || o.prov {
		return nil, nil
	}
	return res.CachedOCIChart(ctx, oc, ref)
}

// digestFilename is the name Helm gives a chart pulled by digest: the
// repository's last element, "@", and the digest with its colon a dash.
func digestFilename(pr oci.Reference) string {
	return path.Base(pr.Repository) + "@" + strings.Replace(pr.Digest, ":", "-", 1) + ".tgz"
}

// underscoreNotice is what Helm says when a pulled reference holds "_", the
// plus sign of a version in a tag.
const underscoreNotice = `OCI artifact references (e.g. tags) do not support the plus sign (+). To support
storing semantic versions, Helm adopts the convention of changing plus (+) to
an underscore (_) in chart version tags when pushing to a registry and back to
a plus (+) when pulling from a registry.
`

// reportOCI says what was pulled or pushed (verb) as Helm does: Helm 4 on
// standard output, Helm 3 on standard error.
func reportOCI(streams genericiooptions.IOStreams, d dialect.Dialect, verb, ref, digest string) {
	w := streams.ErrOut
	if d.IsHelm4() {
		w = streams.Out
	}
	fmt.Fprintf(w, "%s: %s\nDigest: %s\n", verb, ref, digest)
	if strings.Contains(ref, "_") {
		fmt.Fprintf(w, "%s contains an underscore.\n\n%s", ref, underscoreNotice)
	}
}

func writeFileIn(dir, name string, data []byte) error {
	if !filepath.IsLocal(name) || name != filepath.Base(name) {
		return fmt.Errorf("refusing to write %q outside %s", name, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, name), data, 0o644)
}

func provURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i] + ".prov" + u[i:]
	}
	return u + ".prov"
}

func readPassphrase(file string, in io.Reader) ([]byte, error) {
	var b []byte
	var err error
	switch file {
	case "":
		return nil, nil
	case "-":
		b, err = io.ReadAll(in)
	default:
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	return []byte(strings.TrimRight(string(b), "\r\n")), nil
}
