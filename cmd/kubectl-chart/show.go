package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/show"
)

// NewCmdShow builds `kubectl chart show`.
func NewCmdShow(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "show",
		Aliases: []string{"inspect"},
		Short:   "Show information of a chart",
		Long:    `Show a chart's Chart.yaml, values, README or CRDs. CHART is a directory, an archive, REPO/NAME, an http(s) URL or an oci:// reference.`,
	}
	for _, s := range []struct {
		f     show.Format
		short string
	}{
		{show.All, "show all information of the chart"},
		{show.Chart, "show the chart's definition"},
		{show.Values, "show the chart's values"},
		{show.Readme, "show the chart's README"},
		{show.CRDs, "show the chart's CRDs"},
	} {
		cmd.AddCommand(newCmdShowFormat(streams, s.f, s.short))
	}
	return cmd
}

func newCmdShowFormat(streams genericiooptions.IOStreams, f show.Format, short string) *cobra.Command {
	var (
		refs     chartRefFlags
		check    chartVerifyFlags
		jsonPath string
		compat   compatFlags
	)
	cmd := &cobra.Command{
		Use:   string(f) + " [CHART]",
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			if err := refs.checkTLSFiles(d); err != nil {
				return err
			}
			res, err := refs.resolver(streams.ErrOut, d)
			if err != nil {
				return err
			}
			res.Local.Limits, res.Local.NoDetect = loader.LimitsFor(d), true
			c, err := check.load(cmd.Context(), d, res, refs.repoURL, args[0])
			if err != nil {
				return err
			}
			if jsonPath != "" {
				return printJSONPath(streams.Out, jsonPath, c.Values)
			}
			text, err := show.Text(c, f, d)
			if err != nil {
				return err
			}
			_, err = io.WriteString(streams.Out, text)
			return err
		},
	}
	refs.AddFlags(cmd.Flags())
	check.AddFlags(cmd.Flags())
	compat.addReadingCompat(cmd.Flags())
	if f == show.Values {
		cmd.Flags().StringVar(&jsonPath, "jsonpath", "", "supply a JSONPath expression to filter the output")
	}
	return cmd
}

// printJSONPath prints what a JSONPath template selects from values. As in
// Helm, a path that selects nothing prints nothing.
func printJSONPath(w io.Writer, template string, values map[string]any) error {
	p, err := printers.NewJSONPathPrinter(template)
	if err != nil {
		return fmt.Errorf("error parsing jsonpath %s: %w", template, err)
	}
	_ = p.Execute(w, values)
	return nil
}
