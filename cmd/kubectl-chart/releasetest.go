package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// TestOptions runs the tests of a release.
type TestOptions struct {
	genericiooptions.IOStreams
	lifecycle lifecycleFlags
	compat    compatFlags

	timeout   waitFlags
	logs      bool
	hideNotes bool
	// hideNotesGiven is --hide-notes given, with any value: Helm 4 knows no
	// such flag.
	hideNotesGiven bool
	filter         []string

	newLifecycle lifecycleMaker
	releaseName  string
	namespace    string
}

// NewCmdTest builds `kubectl chart test`.
func NewCmdTest(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TestOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run the tests of a release",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.hideNotesGiven = cmd.Flags().Changed("hide-notes")
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
	helmLacks(fs, "output")
	o.compat.AddFlags(fs, dialect.Default)
	_ = fs.MarkHidden("skip-preflight") // tests have no preflight
	fs.DurationVar(&o.timeout.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	fs.BoolVar(&o.hideNotes, "hide-notes", false, "if set, do not show notes in the output (Helm 3 only: Helm 4 shows none)")
	helmOnly(fs, dialect.Helm3, "hide-notes")
	fs.BoolVar(&o.logs, "logs", false, "dump the logs from test pods (this runs after all tests are complete, but before any cleanup)")
	fs.StringSliceVar(&o.filter, "filter", nil, "specify tests by attribute (currently \"name\") using attribute=value syntax or '!attribute=value' to exclude a test")
}

// Complete takes the release name and namespace, and how to make the
// lifecycle from the factory.
func (o *TestOptions) Complete(f Factory, args []string) error {
	o.newLifecycle, o.releaseName, o.namespace = o.lifecycle.maker(f, o.IOStreams), args[0], f.Namespace()
	return nil
}

// Validate checks the flags.
func (o *TestOptions) Validate() error { return o.lifecycle.validate() }

// Run runs the tests, then prints the release's status and, with --logs, the
// test pods' logs, as the dialect's Helm does.
func (o *TestOptions) Run(ctx context.Context) error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if d.IsHelm4() && o.hideNotesGiven {
		// Helm 4 has no such flag: it never prints the notes after tests.
		return errors.New("unknown flag: --hide-notes")
	}
	lc, printer, err := o.newLifecycle()
	if err != nil {
		return err
	}
	req := action.TestRequest{ReleaseName: o.releaseName, Namespace: o.namespace, Timeout: o.timeout.timeout, Filter: o.filter, Dialect: d}
	rel, runErr := lc.Test(ctx, req)
	printer.done()
	if printer.result(rel, runErr) || rel == nil {
		return runErr
	}
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		if err != nil {
			return err
		}
		return runErr
	}
	if err := printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes || d.IsHelm4(), helm4: d.IsHelm4()}); err != nil {
		return err
	}
	if !o.logs {
		return runErr
	}
	// Helm separates the logs from the status with an empty line.
	fmt.Fprintln(o.Out)
	logErr := lc.TestLogs(ctx, rel, o.filter, d, o.Out)
	if logErr == nil {
		return runErr
	}
	if d.IsHelm4() {
		return errors.Join(runErr, logErr)
	}
	return logErr // Helm 3 reports the logs it could not read, not the tests
}
