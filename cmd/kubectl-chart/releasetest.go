package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
)

// TestOptions runs the tests of a release.
type TestOptions struct {
	genericiooptions.IOStreams
	lifecycle lifecycleFlags

	timeout   waitFlags
	logs      bool
	hideNotes bool
	filter    []string

	factory     Factory
	releaseName string
	namespace   string
}

// NewCmdTest builds `kubectl chart test`.
func NewCmdTest(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TestOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run the tests of a release",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags(), f)
	return cmd
}

// AddFlags adds test's flags to fs, with the defaults f reads.
func (o *TestOptions) AddFlags(fs *pflag.FlagSet, f Factory) {
	o.lifecycle.AddFlags(fs, f.StorageDefaults())
	_ = fs.MarkHidden("skip-preflight") // tests have no preflight
	fs.DurationVar(&o.timeout.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	fs.BoolVar(&o.hideNotes, "hide-notes", false, "if set, do not show notes in the output")
	fs.BoolVar(&o.logs, "logs", false, "dump the logs from test pods (this runs after all tests are complete, but before any cleanup)")
	fs.StringSliceVar(&o.filter, "filter", nil, "specify tests by attribute (currently \"name\") using attribute=value syntax or '!attribute=value' to exclude a test")
}

// Complete takes the release name and namespace, and keeps the factory that
// hands the adapters.
func (o *TestOptions) Complete(f Factory, args []string) error {
	o.factory, o.releaseName, o.namespace = f, args[0], f.Namespace()
	return nil
}

// Validate checks the flags.
func (o *TestOptions) Validate() error { return o.lifecycle.validate() }

// Run runs the tests, then prints the release's status and, with --logs, the
// test pods' logs.
func (o *TestOptions) Run(ctx context.Context) error {
	lc, printer, err := o.lifecycle.lifecycle(o.factory, o.IOStreams)
	if err != nil {
		return err
	}
	var logBuf bytes.Buffer
	req := action.TestRequest{ReleaseName: o.releaseName, Namespace: o.namespace, Timeout: o.timeout.timeout, Filter: o.filter, Logs: o.logs, LogOutput: &logBuf}
	rel, runErr := lc.Test(ctx, req)
	printer.done()
	if printer.result(rel, runErr) {
		return runErr
	}
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok && rel != nil {
		if err != nil {
			return err
		}
		return runErr
	}
	if rel != nil {
		if err := printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes, helm4: rel.Dialect().IsHelm4()}); err != nil {
			return err
		}
	}
	if o.logs {
		// Helm separates the logs from the status with an empty line.
		fmt.Fprintln(o.Out)
		_, _ = logBuf.WriteTo(o.Out)
	}
	return runErr
}
