package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
)

// NewCmdTest builds `kubectl chart test`.
func NewCmdTest(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		lf        lifecycleFlags
		timeout   waitFlags
		logs      bool
		hideNotes bool
		filter    []string
	)
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run the tests of a release",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := lf.validate(); err != nil {
				return err
			}
			ns := releaseNamespace(flags)
			lc, printer, err := lf.lifecycle(flags, streams)
			if err != nil {
				return err
			}
			var logBuf bytes.Buffer
			req := action.TestRequest{ReleaseName: args[0], Namespace: ns, Timeout: timeout.timeout, Filter: filter, Logs: logs, LogOutput: &logBuf}
			rel, runErr := lc.Test(cmd.Context(), req)
			printer.done()
			if printer.result(rel, runErr) {
				return runErr
			}
			if rel != nil {
				if err := printStatus(streams.Out, rel, statusView{hideNotes: hideNotes}); err != nil {
					return err
				}
			}
			if logs {
				// Helm separates the logs from the status with an empty line.
				fmt.Fprintln(streams.Out)
				_, _ = logBuf.WriteTo(streams.Out)
			}
			return runErr
		},
	}
	f := cmd.Flags()
	lf.AddFlags(f)
	f.DurationVar(&timeout.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	f.BoolVar(&hideNotes, "hide-notes", false, "if set, do not show notes in the output")
	f.BoolVar(&logs, "logs", false, "dump the logs from test pods (this runs after all tests are complete, but before any cleanup)")
	f.StringSliceVar(&filter, "filter", nil, "specify tests by attribute (currently \"name\") using attribute=value syntax or '!attribute=value' to exclude a test")
	return cmd
}
