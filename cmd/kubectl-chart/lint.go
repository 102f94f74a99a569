package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/lint"
)

// LintOptions examines charts for possible issues, like `helm lint`.
type LintOptions struct {
	genericiooptions.IOStreams
	values        valuesFlags
	strict        bool
	withSubcharts bool
	quiet         bool
	skipSchema    bool
	kubeVersion   string
	namespace     string
	compat        compatFlags
	budget        budgetFlags
}

// NewCmdLint builds `kubectl chart lint`.
func NewCmdLint(streams genericiooptions.IOStreams) *cobra.Command {
	o := &LintOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "lint PATH",
		Short: "Examine a chart for possible issues",
		Long: `Check a chart's Chart.yaml, values and schema, render its templates with the defaults and
the given values, and check the output is valid YAML and valid Kubernetes objects using no API
deprecated or removed in the --kube-version target (WARNING), by the rules of the dialect's Helm.
Findings name the file. Errors fail the lint; with --strict, warnings do too.`,
		Args: func(cmd *cobra.Command, args []string) error {
			// Helm 4 wants a path; Helm 3 lints the current directory.
			if d, err := o.compat.Dialect(); err == nil && d.IsHelm4() {
				return minimumNArgs(1)(cmd, args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return o.Run(cmd.Context(), args)
		},
	}
	f := cmd.Flags()
	o.values.AddFlags(f)
	f.BoolVar(&o.strict, "strict", false, "fail on lint warnings")
	f.BoolVar(&o.withSubcharts, "with-subcharts", false, "lint dependent charts")
	f.BoolVar(&o.quiet, "quiet", false, "print only warnings and errors")
	f.BoolVar(&o.skipSchema, "skip-schema-validation", false, "if set, disables JSON schema validation")
	f.StringVar(&o.kubeVersion, "kube-version", "", "Kubernetes version used for capabilities and deprecation checks")
	f.StringVar(&o.namespace, "lint-namespace", "default", "namespace the templates are rendered for")
	o.compat.AddFlags(f, dialect.Default)
	o.budget.AddFlags(f)
	return cmd
}

// Run lints each path and fails when any chart fails.
func (o *LintOptions) Run(ctx context.Context, paths []string) error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	vals, err := o.values.MergeFor(ctx, o.In, d)
	if err != nil {
		return err
	}
	caps := capabilities.Default(runtime.Version())
	if o.kubeVersion != "" {
		kv, err := capabilities.ParseKubeVersionFor(d, o.kubeVersion)
		if err != nil {
			return capabilities.InvalidKubeVersionError(o.kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	all := paths
	if o.withSubcharts {
		all = append([]string(nil), paths...)
		for _, p := range paths {
			all = append(all, subcharts(p)...)
		}
	}
	// As Helm: --quiet drops the summary only when no chart had a warning or error.
	failed, flagged := 0, 0
	for _, p := range all {
		if err := checkChartDir(p); err != nil {
			// Helm gives up on such a path before linting anything.
			failed++
			fmt.Fprintf(o.Out, "==> Linting %s\nError unable to check Chart.yaml file in chart: %v\n\n", p, err)
			continue
		}
		files, err := extractArchive(p, d)
		if err != nil {
			// Helm lints an archive in the directory it extracts it to, and
			// gives up on one it cannot extract (a bomb: the limit it met).
			failed++
			fmt.Fprintf(o.Out, "==> Linting %s\nError unable to extract tarball: %v\n\n", p, err)
			continue
		}
		req := lintRequest(ctx, p, d, files)
		req.Values, req.Capabilities, req.Namespace = vals, caps, o.namespace
		req.Budget = o.budget.budget
		req.SkipSchemaValidation = o.skipSchema
		req.Warn = dialectWarn(d, o.ErrOut)
		res := lint.Lint(ctx, req)
		bad := res.Failed(o.strict)
		if bad {
			failed++
		}
		if res.Worst() >= lint.Warning {
			flagged++
		}
		if o.quiet && res.Worst() < lint.Warning {
			continue
		}
		fmt.Fprintf(o.Out, "==> Linting %s\n", p)
		for _, f := range res.Findings {
			if o.quiet && f.Severity < lint.Warning {
				continue
			}
			fmt.Fprintln(o.Out, f.String())
		}
		fmt.Fprintln(o.Out)
	}
	summary := fmt.Sprintf("%d chart(s) linted, %d chart(s) failed", len(all), failed)
	if failed > 0 {
		return errors.New(summary)
	}
	if !o.quiet || flagged > 0 {
		fmt.Fprintln(o.Out, summary)
	}
	return nil
}

// checkChartDir is Helm's first check of a path to lint that is not an
// archive: it must hold a Chart.yaml.
func checkChartDir(p string) error {
	if strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz") {
		return nil
	}
	_, err := os.Stat(filepath.Join(p, "Chart.yaml"))
	return err
}

// subcharts are what --with-subcharts lints besides a chart, found as Helm
// finds them: every directory holding a Chart.yaml and every .tgz or .tar.gz
// anywhere under charts/.
func subcharts(chartPath string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(chartPath, "charts"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || d == nil:
		case d.Name() == "Chart.yaml":
			out = append(out, filepath.Dir(p))
		case strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz"):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// extractArchive reads the files of the archive at p as Helm's extraction
// before lint does (with the chart limits), nil for a directory.
func extractArchive(p string, d dialect.Dialect) ([]*loader.BufferedFile, error) {
	if !strings.HasSuffix(p, ".tgz") && !strings.HasSuffix(p, ".tar.gz") {
		return nil, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open tarball: %w", err)
	}
	defer func() { _ = f.Close() }()
	files, err := loader.ArchiveFiles(f, loader.LimitsFor(d))
	if err != nil {
		return nil, err
	}
	name := ""
	for _, file := range files {
		if file.Name == "Chart.yaml" {
			var md struct {
				Name string `json:"name"`
			}
			if err := yaml.Unmarshal(file.Data, &md); err != nil {
				return nil, fmt.Errorf("cannot load Chart.yaml: %w", err)
			}
			name = md.Name
		}
	}
	if name == "" {
		return nil, errors.New("chart name not specified")
	}
	return files, nil
}

// lintRequest reads what lint needs from a chart directory or archive (whose
// files extractArchive read), by the dialect's rules.
func lintRequest(ctx context.Context, p string, d dialect.Dialect, files []*loader.BufferedFile) lint.Request {
	req := lint.Request{Dialect: d}
	req.Dir, _ = filepath.Abs(p)
	fi, err := os.Stat(p)
	if err != nil {
		req.LoadErr = fmt.Errorf("path %q not found", p)
		return req
	}
	// Helm 4's lint is its chart v2 lint: its rules load every chart, apiVersion v3
	// included, with the v2 loader, whose types its errors name.
	c, err := chartsource.Local{Limits: loader.LimitsFor(d), NoDetect: true}.LoadChart(ctx, p)
	if err != nil {
		req.LoadErr = err
		c = nil
	}
	req.Chart = c
	if fi.IsDir() {
		// Helm reads Chart.yaml by the chart's absolute path, which its error quotes.
		chartYAML := filepath.Join(req.Dir, "Chart.yaml")
		if st, err := os.Stat(chartYAML); err == nil && st.IsDir() {
			req.ChartYAMLIsDir = true
		}
		b, err := os.ReadFile(chartYAML)
		switch {
		case err == nil:
			req.ChartYAML = b
		case !errors.Is(err, fs.ErrNotExist):
			req.ChartYAMLErr = err
		}
		if b, err := os.ReadFile(filepath.Join(p, "values.yaml")); err == nil {
			req.ValuesYAML = b
		}
		req.ValuesSchema, _ = os.ReadFile(filepath.Join(p, "values.schema.json"))
		st, err := os.Stat(filepath.Join(p, "templates"))
		req.TemplatesNotDir = err == nil && !st.IsDir()
		req.TemplatesMissing = errors.Is(err, fs.ErrNotExist)
		st, err = os.Stat(filepath.Join(p, "crds"))
		req.CRDs = !errors.Is(err, fs.ErrNotExist)
		req.CRDsNotDir = err == nil && !st.IsDir()
		return req
	}
	// As Helm lints the extracted files, their Chart.yaml and values.yaml are
	// checked even when the chart does not load.
	req.TemplatesMissing = true
	for _, f := range files {
		switch {
		case f.Name == "Chart.yaml":
			req.ChartYAML = f.Data
		case f.Name == "values.yaml":
			req.ValuesYAML = f.Data
		case f.Name == "values.schema.json":
			req.ValuesSchema = f.Data
		case f.Name == "templates":
			req.TemplatesNotDir = true
		case strings.HasPrefix(f.Name, "templates/"):
			req.TemplatesMissing = false
		case f.Name == "crds":
			req.CRDs, req.CRDsNotDir = true, true
		case strings.HasPrefix(f.Name, "crds/"):
			req.CRDs = true
		}
	}
	req.TemplatesMissing = req.TemplatesMissing && !req.TemplatesNotDir
	return req
}
