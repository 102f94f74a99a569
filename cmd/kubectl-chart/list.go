package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ListOptions lists releases, like `helm list`.
type ListOptions struct {
	genericiooptions.IOStreams
	storage *storageFlags
	compat  compatFlags

	allNamespaces bool
	all           bool
	deployed      bool
	failed        bool
	pending       bool
	superseded    bool
	uninstalled   bool
	uninstalling  bool
	filter        string
	selector      string
	max, offset   int
	byDate        bool
	reverse       bool
	short         bool
	noHeaders     bool
	timeFormat    string
	output        string

	store ports.ReleaseStore
	req   query.ListRequest
}

// NewCmdList builds `kubectl chart list`.
func NewCmdList(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ListOptions{IOStreams: streams, storage: newStorageFlags(f.StorageDefaults())}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List releases",
		Long: `List releases in the namespace (all namespaces with -A).

By default only releases whose latest revision is deployed or failed are listed;
--all, --uninstalled, --superseded, --pending, ... change that and combine. Items are
sorted by name; -d sorts by date, -r reverses. Listing reads what each revision's
storage object says about it and decodes no release payload kubectl chart wrote.`,
		Example: `  # Releases in every namespace
  kubectl chart list -A

  # Failed or pending releases whose name starts with "web", as JSON
  kubectl chart list --failed --pending --filter '^web' -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.short, "short", "q", false, "output short (quiet) listing format")
	fs.BoolVar(&o.noHeaders, "no-headers", false, "don't print headers when using the default output format")
	fs.StringVar(&o.timeFormat, "time-format", "", `format time using golang time formatter. Example: --time-format "2006-01-02 15:04:05Z0700"`)
	fs.BoolVarP(&o.byDate, "date", "d", false, "sort by release date")
	fs.BoolVarP(&o.reverse, "reverse", "r", false, "reverse the sort order")
	fs.BoolVarP(&o.all, "all", "a", false, "show all releases without any filter applied (Helm 3)")
	helmOnly(fs, dialect.Helm3, "all")
	fs.BoolVar(&o.uninstalled, "uninstalled", false, "show uninstalled releases (if 'uninstall --keep-history' was used)")
	fs.BoolVar(&o.superseded, "superseded", false, "show superseded releases")
	fs.BoolVar(&o.uninstalling, "uninstalling", false, "show releases that are currently being uninstalled")
	fs.BoolVar(&o.deployed, "deployed", false, "show deployed releases. If no other is specified, this will be automatically enabled")
	fs.BoolVar(&o.failed, "failed", false, "show failed releases")
	fs.BoolVar(&o.pending, "pending", false, "show pending releases")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "list releases across all namespaces")
	fs.IntVarP(&o.max, "max", "m", 256, "maximum number of releases to fetch")
	fs.IntVar(&o.offset, "offset", 0, "next release index in the list, used to offset from start value")
	fs.StringVarP(&o.filter, "filter", "f", "", "a regular expression. Any releases that match the expression will be included in the results")
	fs.StringVarP(&o.selector, "selector", "l", "", "selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2)")
	addOutputFlag(fs, &o.output)
	o.storage.AddFlags(fs)
	o.compat.AddFlags(fs, dialect.Default)
	return cmd
}

// Complete builds the request, and takes the store from the factory.
func (o *ListOptions) Complete(f Factory) error {
	o.req = query.ListRequest{
		Filter: o.filter, Selector: o.selector, ByDate: o.byDate, Reverse: o.reverse, Max: o.max, Offset: o.offset,
	}
	if !o.allNamespaces {
		o.req.Namespace = f.Namespace()
	}
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if d.IsHelm4() {
		// Helm 4 has no --all: it lists every status by default. (Installed
		// as helm, its parsing refuses it already, by the spelling given.)
		if o.all {
			return errors.New("unknown flag: --all")
		}
	}
	switch {
	case o.all:
		o.req.Statuses = listAll()
	case d.IsHelm4() && !o.deployed && !o.failed && !o.pending && !o.superseded && !o.uninstalled && !o.uninstalling:
		// Helm 4 lists releases in every status unless a status flag narrows it
		// (Helm 3: deployed and failed).
		o.req.Statuses = listAll()
	default:
		add := func(on bool, s ...release.Status) {
			if on {
				o.req.Statuses = append(o.req.Statuses, s...)
			}
		}
		add(o.deployed, release.StatusDeployed)
		add(o.failed, release.StatusFailed)
		add(o.pending, release.StatusPendingInstall, release.StatusPendingUpgrade, release.StatusPendingRollback)
		add(o.superseded, release.StatusSuperseded)
		add(o.uninstalled, release.StatusUninstalled)
		add(o.uninstalling, release.StatusUninstalling)
	}
	o.store, err = f.ReleaseStore(o.storage.StorageSettings)
	return err
}

// listAll is every status Helm's list can show (all but unknown).
func listAll() []release.Status {
	return slices.DeleteFunc(release.AllStatuses(), func(s release.Status) bool { return s == release.StatusUnknown })
}

// Validate checks flag values.
func (o *ListOptions) Validate() error {
	if o.offset < 0 {
		return fmt.Errorf("invalid --offset %d: must not be negative", o.offset)
	}
	return nil
}

// listElement is one row, with `helm list -o json`'s field names.
type listElement struct {
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	Revision   string `json:"revision"`
	Updated    string `json:"updated"`
	Status     string `json:"status"`
	Chart      string `json:"chart"`
	AppVersion string `json:"app_version"`
}

// Run lists, then reports unreadable records on stderr without failing.
func (o *ListOptions) Run(cmd *cobra.Command) error {
	res, err := query.ListReleases(cmd.Context(), o.store, o.req)
	if err != nil {
		return err
	}
	reportProblems(o.ErrOut, res.Problems)
	if o.short {
		names := make([]string, len(res.Releases))
		for i, r := range res.Releases {
			names[i] = r.Name
		}
		if o.output == "json" || o.output == "yaml" {
			return writeStructured(o.Out, o.output, names)
		}
		for _, n := range names {
			fmt.Fprintln(o.Out, n)
		}
		return nil
	}
	rows := make([]listElement, len(res.Releases))
	for i, r := range res.Releases {
		updated := "-"
		if !r.Updated.IsZero() {
			updated = r.Updated.String()
			if o.timeFormat != "" {
				updated = r.Updated.Format(o.timeFormat)
			}
		}
		rows[i] = listElement{r.Name, r.Namespace, strconv.Itoa(r.Revision), updated, string(r.Status), chartOrMissing(r.Chart), r.AppVersion}
	}
	if o.output == "json" || o.output == "yaml" {
		return writeStructured(o.Out, o.output, rows)
	}
	t := newTable(0)
	if !o.noHeaders {
		t.row("NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION")
	}
	for _, r := range rows {
		t.row(r.Name, r.Namespace, r.Revision, r.Updated, r.Status, r.Chart, r.AppVersion)
	}
	return t.write(o.Out)
}

func chartOrMissing(c string) string {
	if c == "" {
		return "MISSING"
	}
	return c
}

// reportProblems warns about records that could not be read; the listing goes on.
func reportProblems(w io.Writer, problems []ports.RecordError) {
	for _, p := range problems {
		fmt.Fprintf(w, "Warning: skipping unreadable release record %s\n", humanText(p.Error()))
	}
}

// --- output shared by the release commands ---

// addOutputFlag adds Helm's -o to fs, whose value parsing checks as Helm's
// does.
func addOutputFlag(fs *pflag.FlagSet, out *string) {
	*out = "table"
	fs.VarP(outputValue{out}, "output", "o", "prints the output in the specified format. Allowed values: table, json, yaml")
}

// writeStructured writes JSON (one line, as Helm's encoder) or YAML.
func writeStructured(w io.Writer, format string, v any) error {
	if format == "yaml" {
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("write YAML output: %w", err)
		}
		_, err = w.Write(b)
		return err
	}
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}
