package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// NewCmdDependency builds `kubectl chart dependency`.
func NewCmdDependency(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "dependency update|build|list",
		Aliases: []string{"dep", "dependencies"},
		Short:   "Manage a chart's dependencies",
		Long: `Manage the dependencies listed in Chart.yaml: 'update' resolves version ranges to the
newest matching versions, downloads them into charts/ and writes Chart.lock; 'build' downloads
exactly what Chart.lock records; 'list' shows each dependency and its state.

Repositories are URLs of configured or public repositories, @NAME or alias:NAME of a configured
repository, file://PATH (relative to the chart) or oci://REGISTRY/PATH.`,
	}
	cmd.AddCommand(newCmdDependencyList(streams),
		newCmdDependencyFetch(streams, "update", "Update charts/ based on the contents of Chart.yaml", false),
		newCmdDependencyFetch(streams, "build", "Rebuild the charts/ directory based on the Chart.lock file", true))
	return cmd
}

func newCmdDependencyList(streams genericiooptions.IOStreams) *cobra.Command {
	var compat compatFlags
	var maxColWidth uint
	cmd := &cobra.Command{
		Use:     "list CHART",
		Aliases: []string{"ls"},
		Short:   "List the dependencies for the given chart",
		Args:    maximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if _, err := os.Stat(dir); err != nil {
				// Helm's words: the path's own error.
				return err
			}
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			// Helm 4 reads the chart with its chart v2 loader, as show does.
			local := chartsource.Local{Limits: loader.LimitsFor(d), NoDetect: true}
			rows, err := local.List(cmd.Context(), dir)
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				_, err := fmt.Fprintf(streams.Out, "WARNING: no dependencies at %s\n", filepath.Join(dir, "charts"))
				return err
			}
			t := newTable(maxColWidth).row("NAME", "VERSION", "REPOSITORY", "STATUS")
			for _, r := range rows {
				t.row(r.Name, r.Version, r.Repository, r.Status)
			}
			if err := t.write(streams.Out); err != nil {
				return err
			}
			// Helm ends the table with an empty line, then warns about what
			// charts/ holds that Chart.yaml does not list.
			fmt.Fprintln(streams.Out)
			warnings, err := local.Unlisted(cmd.Context(), dir, rows)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(streams.Out, w)
			}
			return nil
		},
	}
	cmd.Flags().UintVar(&maxColWidth, "max-col-width", 80, "maximum column width for output table")
	compat.addReadingCompat(cmd.Flags())
	return cmd
}

func newCmdDependencyFetch(streams genericiooptions.IOStreams, use, short string, build bool) *cobra.Command {
	var f chartRefFlags
	var skipRefresh bool
	var compat compatFlags
	var check chartVerifyFlags
	cmd := &cobra.Command{
		Use:     use + " CHART",
		Aliases: map[bool][]string{false: {"up"}, true: nil}[build],
		Short:   short,
		Args:    maximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			dia, err := compat.Dialect()
			if err != nil {
				return err
			}
			if err := f.checkTLSFiles(dia); err != nil {
				return err
			}
			d, err := f.dependencies(streams, dia)
			if err != nil {
				return err
			}
			d.Warn = dialectWarn(dia, streams.ErrOut)
			// Helm 3's registry client reports pulls on stderr, Helm 4's
			// on stdout.
			d.Pulls = streams.Out
			if dia == dialect.Helm3 {
				d.Pulls = streams.ErrOut
			}
			d.SkipRefresh = skipRefresh
			if check.verify {
				// As Helm: update needs every downloaded dependency signed,
				// build verifies those that are.
				d.ProvOptional = build
				d.Verify = func(archive []byte, filename string, prov []byte) error {
					_, err := verifyProvenance(dia, archive, filename, prov, check.keyring)
					return err
				}
			}
			if build {
				return d.Build(cmd.Context(), dir)
			}
			return d.Update(cmd.Context(), dir)
		},
	}
	fs := cmd.Flags()
	f.repoSettings.AddFlags(fs)
	fs.BoolVar(&skipRefresh, "skip-refresh", false, "do not refresh the local repository cache")
	f.addRegistryClientFlags(fs, "use insecure HTTP connections for OCI dependencies")
	fs.BoolVar(&check.verify, "verify", false, "verify the packages against signatures")
	fs.StringVar(&check.keyring, "keyring", "", "keyring containing public keys")
	compat.addReadingCompat(cmd.Flags())
	return cmd
}

// addRegistryClientFlags adds the flags that set, as Helm's, the OCI
// registry client dependencies are pulled with (a repository's credentials
// and TLS files are its entry's, from repo add).
func (f *chartRefFlags) addRegistryClientFlags(fs *pflag.FlagSet, plainHTTPUsage string) {
	fs.BoolVar(&f.plainHTTP, "plain-http", false, plainHTTPUsage)
	fs.StringVar(&f.username, "username", "", "chart repository username where to locate the requested chart")
	fs.StringVar(&f.password, "password", "", "chart repository password where to locate the requested chart")
	f.addTLSFlags(fs)
}

// dependencies is the dependency manager for the flags' settings; dia's
// Helm's words refuse a repository's unusable TLS files.
func (f *chartRefFlags) dependencies(streams genericiooptions.IOStreams, dia dialect.Dialect) (*chartsource.Dependencies, error) {
	oc, err := f.ociClient(dia)
	if err != nil {
		return nil, err
	}
	m := f.manager(streams.ErrOut)
	m.Dialect = dia
	return &chartsource.Dependencies{Repos: m, OCI: oc, Out: streams.Out, Now: time.Now, Dialect: dia}, nil
}

// dependencyManager updates package's dependencies silently: Helm discards the
// manager's progress there.
func (o *PackageOptions) dependencyManager(dia dialect.Dialect) (*chartsource.Dependencies, error) {
	d, err := o.download.dependencies(o.IOStreams, dia)
	if err != nil {
		return nil, err
	}
	d.Out = io.Discard
	return d, nil
}
