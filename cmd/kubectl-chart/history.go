package main

import (
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// HistoryOptions shows a release's revisions, like `helm history`.
type HistoryOptions struct {
	genericiooptions.IOStreams
	storage *storageFlags
	compat  compatFlags

	max          int
	output       string
	showRollback bool
	only         dialectOnlyFlags

	name, namespace string
	dialect         dialect.Dialect
	store           ports.ReleaseStore
}

// NewCmdHistory builds `kubectl chart history`.
func NewCmdHistory(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &HistoryOptions{IOStreams: streams, storage: newStorageFlags(f.StorageDefaults())}
	cmd := &cobra.Command{
		Use:     "history RELEASE_NAME",
		Aliases: []string{"hist"},
		Short:   "Show the revisions of a release",
		Long: `Show the revisions of a release, oldest first: when each was deployed, its status,
chart, app version and what happened.`,
		Example: `  kubectl chart history web -n prod --max 5`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().IntVar(&o.max, "max", 256, "maximum number of revision to include in history")
	cmd.Flags().BoolVar(&o.showRollback, "show-rollback-revision", false, "show the rollback revision column in table output")
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm4, "show-rollback-revision")
	addOutputFlag(cmd.Flags(), &o.output)
	o.storage.AddFlags(cmd.Flags())
	o.compat.AddFlags(cmd.Flags(), dialect.Default)
	return cmd
}

// Complete reads the release name and namespace, and takes the store from
// the factory.
func (o *HistoryOptions) Complete(f Factory, args []string) error {
	o.name, o.namespace = args[0], f.Namespace()
	var err error
	if o.dialect, err = o.compat.Dialect(); err != nil {
		return err
	}
	o.store, err = f.ReleaseStore(o.storage.StorageSettings)
	return err
}

// Validate checks flag values: --show-rollback-revision is Helm 4's
// (installed as helm).
func (o *HistoryOptions) Validate() error {
	return o.only.check(o.dialect)
}

// historyElement has `helm history -o json`'s field names; Helm 4 adds
// rollback_revision to the revisions a rollback made, and leaves out a zero
// time (Helm 3 writes "").
type historyElement struct {
	Revision         int           `json:"revision"`
	Updated          *release.Time `json:"updated,omitempty"`
	Status           string        `json:"status"`
	Chart            string        `json:"chart"`
	AppVersion       string        `json:"app_version"`
	RollbackRevision int           `json:"rollback_revision,omitempty"`
	Description      string        `json:"description"`
}

// Run prints the history.
func (o *HistoryOptions) Run(cmd *cobra.Command) error {
	revs, problems, err := query.ReleaseHistory(cmd.Context(), o.store, o.namespace, o.name, o.max)
	if err != nil {
		return err
	}
	reportProblems(o.ErrOut, problems)
	if o.output != "table" {
		rows := make([]historyElement, len(revs))
		for i, r := range revs {
			rows[i] = historyElement{Revision: r.Revision, Updated: &revs[i].Updated, Status: string(r.Status),
				Chart: chartOrMissing(r.Chart), AppVersion: r.AppVersion, Description: r.Description}
			if o.dialect.IsHelm4() {
				rows[i].RollbackRevision = r.RollbackRevision
				if r.Updated.IsZero() {
					rows[i].Updated = nil
				}
			}
		}
		return writeStructured(o.Out, o.output, rows)
	}
	t := newTable(0)
	if o.showRollback {
		// As Helm 4's --show-rollback-revision: the revision a rollback deployed again.
		t.row("REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "ROLLBACK", "DESCRIPTION")
		for _, r := range revs {
			rollback := ""
			if r.RollbackRevision > 0 {
				rollback = strconv.Itoa(r.RollbackRevision)
			}
			t.row(r.Revision, r.Updated.Format(time.ANSIC), r.Status, chartOrMissing(r.Chart), r.AppVersion, rollback, r.Description)
		}
		return t.write(o.Out)
	}
	t.row("REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION")
	for _, r := range revs {
		t.row(r.Revision, r.Updated.Format(time.ANSIC), r.Status, chartOrMissing(r.Chart), r.AppVersion, r.Description)
	}
	return t.write(o.Out)
}
