package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/Masterminds/semver/v3"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
)

// PackageOptions packages chart directories into versioned archives, like `helm package`.
type PackageOptions struct {
	genericiooptions.IOStreams
	// download sets where dependencies come from (--dependency-update): the
	// repositories and, as Helm's flags do, the OCI registry client.
	download chartRefFlags

	version          string
	appVersion       string
	destination      string
	dependencyUpdate bool
	sign             bool
	key              string
	keyring          string
	passphraseFile   string
	// compat is the dialect charts are read by ($KUBECTL_CHART_COMPAT; a hidden --compat).
	compat compatFlags

	paths []string
}

// NewCmdPackage builds `kubectl chart package`.
func NewCmdPackage(streams genericiooptions.IOStreams) *cobra.Command {
	o := &PackageOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "package [CHART_PATH] [...]",
		Short: "Package chart directories into reproducible chart archives",
		Long: `Package chart directories into versioned chart archives (NAME-VERSION.tgz).

The archive is reproducible: packaging the same chart again gives the same bytes
(entries are sorted, with fixed times and modes, and the gzip header holds no name or time).`,
		Example: `  kubectl chart package ./mychart --version 1.2.3 -d dist/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("need at least one argument, the path to the chart")
			}
			if err := o.Validate(); err != nil {
				return err
			}
			o.paths = args
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.compat.addReadingCompat(f)
	o.download.repoSettings.AddFlags(f)
	f.StringVar(&o.version, "version", "", "set the version on the chart to this semver version")
	f.StringVar(&o.appVersion, "app-version", "", "set the appVersion on the chart to this version")
	f.StringVarP(&o.destination, "destination", "d", ".", "location to write the chart.")
	f.BoolVarP(&o.dependencyUpdate, "dependency-update", "u", false, `update dependencies from "Chart.yaml" to dir "charts/" before packaging`)
	f.BoolVar(&o.sign, "sign", false, "use a PGP private key to sign this package")
	f.StringVar(&o.key, "key", "", "name of the key to use when signing. Used if --sign is true")
	f.StringVar(&o.keyring, "keyring", "", "location of a public keyring")
	o.download.addRegistryClientFlags(f, "use insecure HTTP connections for the chart download")
	f.StringVar(&o.passphraseFile, "passphrase-file", "", `location of a file which contains the passphrase for the signing key. Use "-" in order to read from stdin.`)
	return cmd
}

// Validate refuses to sign without a key and a keyring the user named: a
// package is never signed with a key picked for them.
func (o *PackageOptions) Validate() error {
	if !o.sign {
		return nil
	}
	if o.key == "" {
		return errors.New("--key is required for signing a package")
	}
	if o.keyring == "" {
		return errors.New("--keyring is required for signing a package")
	}
	return nil
}

// Run packages each path. As Helm, it makes the registry client first: a
// TLS file it cannot use fails the command before any chart is read.
func (o *PackageOptions) Run(ctx context.Context) error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if err := o.download.checkTLSFiles(d); err != nil {
		return err
	}
	for _, p := range o.paths {
		out, err := o.packageOne(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "Successfully packaged chart and saved it to: %s\n", out)
	}
	return nil
}

func (o *PackageOptions) packageOne(ctx context.Context, p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("path %q not found", p)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a chart directory", p)
	}
	d, err := o.compat.Dialect()
	if err != nil {
		return "", err
	}
	limits := loader.LimitsFor(d)
	if o.dependencyUpdate {
		dm, err := o.dependencyManager(d)
		if err != nil {
			return "", err
		}
		dm.Limits = limits
		// Helm updates the chart by its absolute path, which its errors name.
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if err := dm.Update(ctx, abs); err != nil {
			return "", err
		}
	}
	ch, err := chartsource.Local{Limits: limits}.LoadChart(ctx, p)
	if err != nil {
		return "", err
	}
	if err := chartcheck.SupportedAPIVersion(d, ch); err != nil {
		return "", err
	}
	if o.version != "" {
		ch.Metadata.Version = o.version
	}
	// Helm reads the version as SemVer before anything else checks it (semver's words).
	if _, err := semver.NewVersion(ch.Metadata.Version); err != nil {
		return "", err
	}
	if o.appVersion != "" {
		ch.Metadata.AppVersion = o.appVersion
	}
	if err := chartcheck.Dependencies(ch); err != nil {
		return "", err
	}
	if ch.Metadata.Type != "" && ch.Metadata.Type != "application" && ch.Metadata.Type != "library" {
		return "", fmt.Errorf("chart %s: type %q is not application or library", p, ch.Metadata.Type)
	}
	return writeArchive(ch, o.destination, o.sign, o.key, o.keyring, o.passphraseFile, o.In)
}

func writeArchive(ch *chart.Chart, dest string, sign bool, key, keyring, passFile string, in interface{ Read([]byte) (int, error) }) (string, error) {
	var buf bytes.Buffer
	if err := archive.Write(&buf, ch); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", fmt.Errorf("create destination: %w", err)
	}
	abs, err := filepath.Abs(filepath.Join(dest, archive.FileName(ch)))
	if err != nil {
		return "", err
	}
	// Helm names the archive as the destination was given, or absolute for
	// the default, the current directory.
	shown := filepath.Join(dest, archive.FileName(ch))
	if dest == "." {
		shown = abs
	}
	if err := atomicfile.Write(abs, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	if sign {
		pass, err := readPassphrase(passFile, in)
		if err != nil {
			return "", err
		}
		prov, err := provenance.Sign(buf.Bytes(), filepath.Base(abs), ch.Metadata, keyring, key, pass)
		if err != nil {
			return "", err
		}
		if err := atomicfile.Write(abs+".prov", prov, 0o644); err != nil {
			return "", err
		}
	}
	return shown, nil
}
