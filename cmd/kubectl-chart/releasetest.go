package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// NewCmdTest builds `kubectl chart test`.
func NewCmdTest(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		lf      lifecycleFlags
		timeout waitFlags
		logs    bool
		filter  []string
	)
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run the tests of a release",
		Args:  cobra.ExactArgs(1),
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
				printRelease(streams.Out, rel, false)
				for _, h := range rel.Hooks {
					if !h.IsTest() || h.LastRun.Phase == "" || h.LastRun.Phase == release.HookPhaseUnknown {
						continue
					}
					fmt.Fprintf(streams.Out, "TEST SUITE:     %s\nLast Started:   %s\nLast Completed: %s\nPhase:          %s\n",
						h.Name, h.LastRun.StartedAt.Format("Mon Jan _2 15:04:05 2006"), h.LastRun.CompletedAt.Format("Mon Jan _2 15:04:05 2006"), h.LastRun.Phase)
				}
			}
			_, _ = logBuf.WriteTo(streams.Out)
			return runErr
		},
	}
	f := cmd.Flags()
	lf.AddFlags(f)
	f.DurationVar(&timeout.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	f.BoolVar(&logs, "logs", false, "dump the logs from test pods (this runs after all tests are complete, but before any cleanup)")
	f.StringSliceVar(&filter, "filter", nil, "specify tests by attribute (currently \"name\") using attribute=value syntax or '!attribute=value' to exclude a test")
	return cmd
}
