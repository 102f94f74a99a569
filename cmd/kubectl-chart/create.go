package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/domain/create"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// NewCmdCreate builds `kubectl chart create`.
// starters are the directories named starters are looked up in, in order.
// chartV3 is Helm 4's gate for chart API v3 ($HELM_EXPERIMENTAL_CHART_V3).
func NewCmdCreate(starters []string, chartV3 bool, streams genericiooptions.IOStreams) *cobra.Command {
	var starter, apiVersion string
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a new chart with the given name",
		Long: `Create a chart directory NAME with the files Helm's create writes: a Deployment, Service,
Ingress, HTTPRoute, HorizontalPodAutoscaler, ServiceAccount, NOTES.txt and a test hook. --compat
chooses whose scaffold: Helm 4.3.1's (helm4, the default) or Helm 3.22's (helm3).

--starter copies a starter chart instead: a directory path, or a name under
$XDG_DATA_HOME/kubectl-chart/starters or Helm's $HELM_DATA_HOME/starters. "<CHARTNAME>" in its files becomes the chart's name.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := filepath.Clean(args[0])
			name := filepath.Base(dir)
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			if !d.IsHelm4() && cmd.Flags().Changed("chart-api-version") {
				return errors.New("unknown flag: --chart-api-version")
			}
			fmt.Fprintf(streams.Out, "Creating %s\n", args[0])
			if err := checkChartAPIVersion(apiVersion, chartV3); err != nil {
				return err
			}
			if starter != "" {
				raw, err := readStarter(starter, starters)
				if err != nil {
					return err
				}
				files, err := create.FromStarter(name, raw)
				if err != nil {
					return err
				}
				return writeChartFiles(dir, files, func(p string) {
					fmt.Fprintf(streams.ErrOut, "WARNING: File %q already exists. Overwriting.\n", p)
				})
			}
			files, err := create.Scaffold(name, d, apiVersion)
			if err != nil {
				return err
			}
			return writeScaffold(streams, dir, files, apiVersion == create.APIVersionV3)
		},
	}
	cmd.Flags().StringVarP(&starter, "starter", "p", "", "the name or absolute path to the starter chart")
	cmd.Flags().StringVar(&apiVersion, "chart-api-version", create.APIVersionV2, "chart API version to use (v2 or v3; v3 is experimental, behind $HELM_EXPERIMENTAL_CHART_V3)")
	helmOnly(cmd.Flags(), dialect.Helm4, "chart-api-version")
	if !chartV3 {
		// As Helm 4: the flag shows once the experiment is on.
		_ = cmd.Flags().MarkHidden("chart-api-version")
	}
	compat.AddFlags(cmd.Flags(), dialect.Default)
	return cmd
}

// checkChartAPIVersion checks --chart-api-version as Helm 4 does: v2, or v3
// with its experimental gate on.
func checkChartAPIVersion(v string, chartV3 bool) error {
	switch v {
	case create.APIVersionV2:
		return nil
	case create.APIVersionV3:
		if !chartV3 {
			return errors.New("this feature has been marked as experimental and is not enabled by default. Please set HELM_EXPERIMENTAL_CHART_V3=1 in your environment to use this feature")
		}
		return nil
	}
	return fmt.Errorf("unsupported chart API version: %s (supported: v2, v3)", v)
}

func readStarter(starter string, starters []string) ([]create.File, error) {
	dirs := []string{starter}
	if !strings.ContainsRune(starter, filepath.Separator) && !strings.HasPrefix(starter, ".") {
		dirs = nil
		for _, d := range starters {
			dirs = append(dirs, filepath.Join(d, starter))
		}
	}
	dir := ""
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		return nil, fmt.Errorf("starter %q not found (looked in %s)", starter, strings.Join(dirs, ", "))
	}
	return create.LoadStarter(os.DirFS(dir), create.DefaultStarterLimits())
}

// writeScaffold writes a scaffold as Helm's create does: into an existing
// parent directory, with the empty charts directory.
func writeScaffold(streams genericiooptions.IOStreams, dir string, files []create.File, chartV3 bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("no such directory %s", filepath.Dir(abs))
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return fmt.Errorf("file %s already exists and is not a directory", abs)
	}
	// Helm warns of each file it overwrites on stdout, by absolute path;
	// Helm 4's chart API v3 create logs it on stderr.
	warn := func(p string) { fmt.Fprintf(streams.Out, "WARNING: File %q already exists. Overwriting.\n", p) }
	if chartV3 {
		log := helm4Logger(streams.ErrOut, false)
		warn = func(p string) { log.Warn("Overwriting existing file", "file", p) }
	}
	if err := writeChartFiles(abs, files, warn); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(abs, create.ChartsDir), 0o755)
}

// writeChartFiles writes files under dir, never through a symlink and never
// outside dir; warn is told of each file it overwrites.
func writeChartFiles(dir string, files []create.File, warn func(path string)) error {
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("file %s already exists and is not a directory", dir)
	}
	for _, f := range files {
		rel := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("refusing to write %q outside %s", f.Name, dir)
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if fi, err := os.Lstat(p); err == nil {
			if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
				return fmt.Errorf("%s exists and is not a regular file: refusing to overwrite it", p)
			}
			warn(p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := atomicfile.Write(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
