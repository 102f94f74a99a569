package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/drift"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// driftExitDrifted is --detailed-exitcode's status when something drifted.
const driftExitDrifted = 2

// DriftOptions finds, and corrects, what changed behind releases' backs.
type DriftOptions struct {
	genericiooptions.IOStreams
	lifecycle lifecycleFlags

	allNamespaces    bool
	selector         string
	detailedExitCode bool
	showSecrets      bool
	correct          bool
	dryRun           bool

	newLifecycle lifecycleMaker
	name         string
	namespace    string
}

// NewCmdDrift builds `kubectl chart drift`.
func NewCmdDrift(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DriftOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "drift [NAME]",
		Short: "Show what changed in the cluster behind a release's back, and put it back",
		Long: `Compare each object of a release's deployed revision with the live object, limited to the
fields the release sets: objects deleted out of band, fields whose live value differs (with the
release's value, the live value, and the field manager that wrote it and when, from the object's
managedFields), objects whose ownership metadata was removed. Fields the release does not set —
server defaults, status, an autoscaler's replicas — are not drift. Secret values are never
printed unless --show-secrets.

--correct applies the deployed revision's objects again under the release lock: missing objects
are created and drifted fields taken back, other managers' fields are left alone. The correction is
recorded on the deployed revision (its description); its manifest and values do not change.`,
		Example: `  kubectl chart drift web -n prod
  kubectl chart drift -A --detailed-exitcode            # 0 none, 2 drift, 1 error (for CI and cron)
  kubectl chart drift web -n prod --correct`,
		Args: maximumNArgs(1),
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
	fs := cmd.Flags()
	o.lifecycle.AddFlags(fs, f.StorageDefaults())
	_ = fs.MarkHidden("skip-preflight") // drift's correction has no preflight
	o.lifecycle.planOutput = true
	fs.Lookup("output").Usage = "output format: table (default), json or yaml"
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "check the releases of every namespace")
	fs.StringVarP(&o.selector, "selector", "l", "", "check only releases whose storage labels match (label=value, label!=value, label, !label)")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 0 when nothing drifted, 2 when something did, 1 on error")
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "print the values of Secrets (only changed or unchanged by default)")
	fs.BoolVar(&o.correct, "correct", false, "put the drifted objects back as the deployed revision sets them")
	fs.BoolVar(&o.dryRun, "dry-run", false, "with --correct, show what it would do and change nothing")
	return cmd
}

// Complete takes the release name and the namespace.
func (o *DriftOptions) Complete(f Factory, args []string) error {
	o.newLifecycle = o.lifecycle.maker(f, o.IOStreams)
	if len(args) == 1 {
		o.name = args[0]
	}
	if !o.allNamespaces {
		o.namespace = f.Namespace()
	}
	return nil
}

// Validate checks the flags.
func (o *DriftOptions) Validate() error {
	if err := o.lifecycle.validate(); err != nil {
		return err
	}
	switch {
	case o.name != "" && o.allNamespaces:
		return errors.New("a release name and --all-namespaces exclude each other")
	case o.name != "" && o.selector != "":
		return errors.New("a release name and --selector exclude each other")
	case o.correct && o.name == "":
		return errors.New("--correct needs a release name")
	case o.dryRun && !o.correct:
		return errors.New("--dry-run goes with --correct")
	}
	return nil
}

// Run reports (and corrects) drift.
func (o *DriftOptions) Run(ctx context.Context) error {
	lc, printer, err := o.newLifecycle()
	if err != nil {
		return err
	}
	if o.correct && !o.dryRun {
		d, err := lc.CorrectDrift(ctx, o.namespace, o.name)
		printer.done()
		if err != nil {
			return err
		}
		if !d.Drifted() {
			fmt.Fprintf(o.Out, "release %q has not drifted; nothing to correct\n", o.name)
			return nil
		}
		fmt.Fprintf(o.Out, "release %q: corrected\n", o.name)
		return o.print([]action.ReleaseDrift{*d})
	}
	drifts, err := lc.Drift(ctx, action.DriftRequest{Namespace: o.namespace, Name: o.name, Selector: o.selector})
	if err != nil {
		return err
	}
	if err := o.print(drifts); err != nil {
		return err
	}
	var failed []string
	drifted := false
	for _, d := range drifts {
		if d.Err != nil {
			failed = append(failed, fmt.Sprintf("%s/%s: %v", d.Namespace, d.Name, d.Err))
		}
		drifted = drifted || d.Drifted()
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d release(s) could not be checked: %s", len(failed), strings.Join(failed, "; "))
	}
	if o.detailedExitCode && drifted {
		return &exitCodeError{code: driftExitDrifted}
	}
	return nil
}

func (o *DriftOptions) print(drifts []action.ReleaseDrift) error {
	switch o.lifecycle.output {
	case "json", "yaml":
		return printDriftData(o.Out, drifts, o.lifecycle.output, o.showSecrets)
	}
	return printDriftTable(o.Out, drifts, o.showSecrets, o.allNamespaces || o.name == "")
}

// driftObject is one object in -o json|yaml.
type driftObject struct {
	Object    string        `json:"object"`
	State     string        `json:"state"`
	Action    plan.Action   `json:"correction"`
	Fields    []drift.Field `json:"fields,omitempty"`
	Manager   string        `json:"manager,omitempty"`
	Namespace string        `json:"namespace,omitempty"`
}

type driftRelease struct {
	Release   string        `json:"release"`
	Namespace string        `json:"namespace"`
	Revision  int           `json:"revision"`
	Drifted   bool          `json:"drifted"`
	Objects   []driftObject `json:"objects,omitempty"`
	Error     string        `json:"error,omitempty"`
}

func driftData(drifts []action.ReleaseDrift, showSecrets bool) []driftRelease {
	out := make([]driftRelease, 0, len(drifts))
	for _, d := range drifts {
		r := driftRelease{Release: d.Name, Namespace: d.Namespace, Revision: d.Revision, Drifted: d.Drifted()}
		if d.Err != nil {
			r.Error = d.Err.Error()
		}
		if d.Plan != nil {
			for _, s := range d.Plan.Steps() {
				if !s.Action.Changes() && s.Note == "" {
					continue
				}
				fields := maskFields(s.Drift, showSecrets)
				r.Objects = append(r.Objects, driftObject{Object: s.Ref.String(), State: driftState(s), Action: s.Action, Fields: fields})
			}
		}
		out = append(out, r)
	}
	return out
}

// driftState says in a word or two what happened to an object.
func driftState(s plan.Step) string {
	switch {
	case s.Action == plan.ActionCreate:
		return s.Note
	case s.Action == plan.ActionUpdate:
		return s.Note
	case s.Note != "":
		return s.Note
	}
	return "in sync"
}

// maskFields hides Secret values unless asked: changed, never what.
func maskFields(fields []drift.Field, show bool) []drift.Field {
	out := append([]drift.Field(nil), fields...)
	for i, f := range out {
		if f.Secret && !show {
			out[i].Want, out[i].Live = "***", "*** (changed)"
			if f.Removed {
				out[i].Live = nil
			}
		}
	}
	return out
}

func printDriftData(w io.Writer, drifts []action.ReleaseDrift, format string, showSecrets bool) error {
	b, err := json.MarshalIndent(driftData(drifts, showSecrets), "", "  ")
	if err != nil {
		return fmt.Errorf("encode drift: %w", err)
	}
	if format == "yaml" {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return fmt.Errorf("encode drift: %w", err)
		}
	} else {
		b = append(b, '\n')
	}
	_, err = w.Write(b)
	return err
}

// printDriftTable prints one row per drifted field (or missing object).
func printDriftTable(w io.Writer, drifts []action.ReleaseDrift, showSecrets, withRelease bool) error {
	var body strings.Builder
	tw := tabwriter.NewWriter(&body, 0, 8, 3, ' ', 0)
	header := "OBJECT\tFIELD\tRELEASE VALUE\tLIVE VALUE\tCHANGED BY\tAT"
	if withRelease {
		header = "NAMESPACE\tRELEASE\t" + header
	}
	fmt.Fprintln(tw, header)
	rows := 0
	for _, r := range driftData(drifts, showSecrets) {
		prefix := ""
		if withRelease {
			prefix = r.Namespace + "\t" + r.Release + "\t"
		}
		if r.Error != "" {
			fmt.Fprintf(tw, "%s%s\t%s\t\t\t\t\n", prefix, "(release)", "error: "+oneLine(r.Error))
			rows++
			continue
		}
		for _, obj := range r.Objects {
			if obj.Action == plan.ActionNoOp && obj.State == "in sync" {
				continue
			}
			if len(obj.Fields) == 0 {
				fmt.Fprintf(tw, "%s%s\t(%s)\t\t\t\t\n", prefix, obj.Object, obj.State)
				rows++
				continue
			}
			for _, fd := range obj.Fields {
				live := value(fd.Live)
				if fd.Removed {
					live = "(removed)"
				}
				by, at := fd.Manager, fd.Time
				if fd.Subresource != "" {
					by += " (" + fd.Subresource + ")"
				}
				if fd.Release {
					// Helm and we write as "helm" by default: the name alone
					// does not say it was the release's own operation.
					by += " (this release)"
				}
				if by == "" {
					by = "-"
				}
				if at == "" {
					at = "-"
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", prefix, obj.Object, fd.Path, value(fd.Want), live, by, at)
				rows++
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	out := body.String()
	if rows == 0 {
		out = "no drift\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// value prints a field's value on one short line.
func value(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case nil:
		s = "null"
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(b)
		}
	}
	s = oneLine(s)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", `\n`) }
