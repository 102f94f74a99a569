package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/migrate"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// NewCmdStorage builds `kubectl chart storage`, which works on release stores.
func NewCmdStorage(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "storage",
		Short: "Work on the stores that keep release histories",
		Args:  noArgs,
	}
	cmd.AddCommand(NewCmdStorageMigrate(f, streams))
	return cmd
}

// StorageMigrateOptions copy release histories from one store to another.
type StorageMigrateOptions struct {
	genericiooptions.IOStreams
	from, to      string
	allNamespaces bool

	namespace      string
	source, target ports.ReleaseStore
}

// NewCmdStorageMigrate builds `kubectl chart storage migrate`.
func NewCmdStorageMigrate(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &StorageMigrateOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "migrate --from STORE --to STORE",
		Short: "Copy release histories from one store to another",
		Long: `Copy every revision of the namespace's releases (of every namespace's with -A)
from one release store to another: secret, configmap, bbolt or sql. Revisions
already in the destination are left as they are when they are the same, and
stop the migration when they differ; every revision is read back from the
destination and compared with the source, which is only read. Running it
again copies what is missing.`,
		Example: `  # Move the release history of every namespace from Secrets to PostgreSQL
  HELM_DRIVER_SQL_CONNECTION_STRING=postgres://helm@db/helm kubectl chart storage migrate --from secret --to sql -A`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(f); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVar(&o.from, "from", "", "the store to copy from: secret, configmap, bbolt or sql")
	cmd.Flags().StringVar(&o.to, "to", "", "the store to copy to: secret, configmap, bbolt or sql")
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "copy the releases of every namespace")
	return cmd
}

// Complete opens both stores, with the settings of --bbolt-path and the
// connection string the environment gives.
func (o *StorageMigrateOptions) Complete(f Factory) error {
	if o.from == "" || o.to == "" {
		return errors.New("storage migrate needs --from and --to")
	}
	if o.from == o.to {
		return fmt.Errorf("--from and --to are both %q", o.from)
	}
	if !o.allNamespaces {
		o.namespace = f.Namespace()
	}
	open := func(driver string) (ports.ReleaseStore, error) {
		if driver == storageMemory {
			return nil, errors.New("the memory store lives only as long as one command: nothing to migrate from or to")
		}
		s := f.StorageDefaults()
		s.Driver = driver
		return f.ReleaseStore(s)
	}
	var err error
	if o.source, err = open(o.from); err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	if o.target, err = open(o.to); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	return nil
}

// Run copies and says what it did.
func (o *StorageMigrateOptions) Run(cmd *cobra.Command) error {
	rep, err := migrate.Copy(cmd.Context(), o.source, o.target, o.namespace)
	if err != nil {
		return err
	}
	where := "namespace " + o.namespace
	if o.allNamespaces {
		where = "all namespaces"
	}
	fmt.Fprintf(o.Out, "%s -> %s (%s): %d releases, %d revisions copied, %d already there; all %d read back and verified\n",
		o.from, o.to, where, rep.Releases, rep.Copied, rep.Present, rep.Copied+rep.Present)
	return nil
}
