package main

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// RollbackOptions rolls a release back to a previous revision.
type RollbackOptions struct {
	genericiooptions.IOStreams
	wait      waitFlags
	lifecycle lifecycleFlags
	usePlan   usePlanFlag

	noHooks        bool
	forceReplace   bool
	forceConflicts bool
	cleanupOnFail  bool
	dryRun         string
	historyMax     int
	serverSide     string
	description    string
	// warnings are what the flags said while parsed (Helm 4's deprecations).
	warnings flagWarnings
	// only are the flags one Helm has and the other lacks.
	only         dialectOnlyFlags
	recreatePods bool

	newLifecycle lifecycleMaker
	// cmdDialect is the dialect of the command line; asHelm says the
	// program was installed as helm.
	cmdDialect  dialect.Dialect
	asHelm      bool
	args        []string
	releaseName string
	namespace   string
	revision    int
}

// NewCmdRollback builds `kubectl chart rollback`.
func NewCmdRollback(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &RollbackOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "rollback <RELEASE> [REVISION]",
		Short: "Roll a release back to a previous revision",
		Long: `Roll a release back to a previous revision (by default the one before the
latest), as a new revision, as helm rollback does.`,
		Args: o.usePlan.args(rangeArgs(1, 2)),
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
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm4, "description", "force-replace", "force-conflicts", "server-side")
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm3, "recreate-pods")
	exclusiveForceFlags(cmd)
	return cmd
}

// AddFlags adds rollback's flags to fs, with the defaults f reads.
func (o *RollbackOptions) AddFlags(fs *pflag.FlagSet, f Factory) {
	o.wait.AddFlags(fs, &o.warnings)
	o.lifecycle.AddFlags(fs, f.StorageDefaults())
	helmLacks(fs, "output")
	fs.BoolVar(&o.noHooks, "no-hooks", false, "prevent hooks from running during rollback")
	fs.BoolVar(&o.forceReplace, "force-replace", false, "delete and recreate objects whose change the server refuses")
	fs.BoolVar(&o.forceReplace, "force", false, "deprecated: use --force-replace")
	deprecate(fs, "force", "use --force-replace instead", &o.warnings)
	fs.BoolVar(&o.forceConflicts, "force-conflicts", false, "take over fields that other field managers own")
	fs.BoolVar(&o.cleanupOnFail, "cleanup-on-fail", false, "allow deletion of new resources created in this rollback when rollback fails")
	fs.StringVar(&o.dryRun, "dry-run", "none", `simulate a rollback: "client" shows the revision it would record; "none" (the default) rolls back`)
	fs.Lookup("dry-run").NoOptDefVal = dryRunUnset
	fs.StringVar(&o.serverSide, "server-side", string(action.ServerSideAuto), serverSideUsage)
	fs.StringVar(&o.description, "description", "", fmt.Sprintf("add a custom description for the rollback (at most %d characters)", maxRollbackDescription))
	// Helm 3's: its pods restart anyway when the rollback changes their template.
	fs.BoolVar(&o.recreatePods, "recreate-pods", false, "Helm 3 only: accepted, with no effect")
	_ = fs.MarkHidden("recreate-pods")
	fs.IntVar(&o.historyMax, "history-max", 10, "limit the maximum number of revisions saved per release; 0 for no limit")
	o.usePlan.AddFlags(fs)
}

// Complete takes the release name and namespace, how to make the lifecycle
// from the factory, and what the settings say of the command line.
func (o *RollbackOptions) Complete(f Factory, args []string) error {
	o.args, o.newLifecycle = args, o.lifecycle.maker(f, o.IOStreams)
	o.cmdDialect, o.asHelm = commandDialect(f.Settings()), f.Settings().asHelm
	o.releaseName, o.namespace = args[0], f.Namespace()
	return nil
}

// Validate reads the revision argument (0, the one
// before the latest, when there is none).
func (o *RollbackOptions) Validate() error {
	cmdLine := o.cmdDialect
	if !cmdLine.IsHelm4() {
		o.warnings.lines = nil // Helm 3's own --force: no deprecation, before any refusal either
	}
	if err := o.only.check(cmdLine); err != nil {
		return err
	}
	if err := o.lifecycle.validate(); err != nil {
		return err
	}
	// As both Helms: the revision is read first, before the dry run's
	// deprecation is printed.
	var err error
	if o.revision, err = revisionArg(o.args); err != nil {
		// Helm 4 prints a flag's deprecation as it parses it, before any error.
		o.warnings.print(o.ErrOut)
		return err
	}
	if n := utf8.RuneCountInString(o.description); n > maxRollbackDescription {
		return fmt.Errorf("description must be %d characters or less, got %d", maxRollbackDescription, n)
	}
	if _, err := action.ParseServerSide(o.serverSide); err != nil {
		return err
	}
	switch o.dryRun {
	case "none", "", "client", "true", "false", dryRunUnset:
	case "server":
		return errors.New(`--dry-run=server is not supported by rollback: use --dry-run=client, or kubectl chart diff rollback to see what the server would make of it`)
	default:
		return fmt.Errorf(`invalid dry-run value (%q). Must be "none", "server", or "client"`, o.dryRun)
	}
	if cmdLine.IsHelm4() {
		dryRunWarnings(o.dryRun, &o.warnings)
	}
	return nil
}

// maxRollbackDescription bounds rollback --description, as Helm 4 does.
const maxRollbackDescription = 256

// isDryRun reports whether --dry-run asks for a client-side dry run.
func (o *RollbackOptions) isDryRun() bool {
	return o.dryRun == "client" || o.dryRun == "true" || o.dryRun == dryRunUnset
}

// Run rolls the release back, or executes a saved rollback plan.
func (o *RollbackOptions) Run(ctx context.Context) error {
	o.warnings.print(o.ErrOut)
	lc, printer, err := o.newLifecycle()
	if err != nil {
		return err
	}
	var rel *release.Release
	if o.usePlan.file != "" {
		var out *action.Outcome
		out, err = o.usePlan.execute(ctx, lc, plan.OpRollback, o.releaseName, o.namespace, action.ExecOptions{
			WaitSpec: o.wait.spec(), HistoryMax: o.historyMax, CleanupOnFail: o.cleanupOnFail,
		})
		if out != nil {
			rel = out.Release
		}
	} else {
		rel, err = lc.Rollback(ctx, action.RollbackRequest{
			ReleaseName: o.releaseName, Namespace: o.namespace, Revision: o.revision, WaitSpec: o.wait.spec(),
			NoHooks: o.noHooks, ForceReplace: o.forceReplace, HelmForceReplace: o.asHelm, ForceConflicts: o.forceConflicts,
			CleanupOnFail: o.cleanupOnFail, DryRun: o.isDryRun(), HistoryMax: o.historyMax,
			ServerSide: action.ServerSide(o.serverSide), Description: o.description,
		})
	}
	printer.done()
	if printer.result(rel, err) {
		return err
	}
	if rel != nil && rel.Dialect().IsHelm4() {
		logHelm4Baselines(o.ErrOut, printer)
	}
	if err != nil {
		if rel != nil && rel.Dialect().IsHelm4() {
			logHelm4ChangeFailures(o.ErrOut, o.releaseName, err)
		}
		return err
	}
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		return err
	}
	fmt.Fprintln(o.Out, "Rollback was a success! Happy Helming!")
	return nil
}
