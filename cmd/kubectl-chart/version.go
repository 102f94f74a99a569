package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// VersionOptions prints the version: as the dialect's Helm prints its own when
// asked by a tool (--short, --template) or when installed as helm, and our own
// line otherwise.
type VersionOptions struct {
	genericiooptions.IOStreams
	Build  BuildInfo
	Short  bool
	Output string
	// Template is --template, executed on Helm's own version.BuildInfo.
	Template string
	// Client is Helm 3's hidden --client, which changes nothing there.
	Client bool
	compat compatFlags
}

// NewCmdVersion builds `kubectl chart version`.
func NewCmdVersion(streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	o := &VersionOptions{IOStreams: streams, Build: build}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version (as Helm does when installed as helm, or with --short or --template)",
		// Helm 4 has no --client: it is refused before the arguments are looked at, as pflag would.
		Args: func(cmd *cobra.Command, args []string) error {
			if err := o.refuseClient(cmd); err != nil {
				return err
			}
			return noArgs(cmd, args)
		},
		RunE: func(_ *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.Short, "short", false, "print the version number")
	fs.StringVar(&o.Template, "template", "", "template for version string format")
	fs.BoolVar(&o.Client, "client", true, "display client version information")
	_ = fs.MarkHidden("client")
	helmOnly(fs, dialect.Helm3, "client")
	if !build.AsHelm {
		// Ours: Helm's version command has no -o.
		fs.StringVarP(&o.Output, "output", "o", "", "output format: json (kubectl-chart's own fields)")
	}
	o.compat.addReadingCompat(fs)
	return cmd
}

// refuseClient refuses Helm 3's --client (and its -c, which Helm 3's flag
// parsing refuses too) in the Helm 4 dialect, as Helm 4's flag parsing does.
func (o *VersionOptions) refuseClient(cmd *cobra.Command) error {
	if !cmd.Flags().Changed("client") {
		return nil
	}
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if d.IsHelm4() {
		return errors.New("unknown flag: --client")
	}
	return nil
}

// Validate checks the output format.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("invalid output format %q: only json is supported", o.Output)
	}
	_, err := o.compat.Dialect()
	return err
}

// Run prints the version.
func (o *VersionOptions) Run() error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	b := o.helmBuild(d)
	switch {
	case o.Template != "":
		t, err := template.New("_").Parse(o.Template)
		if err != nil {
			return err
		}
		return t.Execute(o.Out, capabilities.HelmBuildInfo(d, b))
	case o.Output == "json":
		out, err := json.MarshalIndent(map[string]string{
			"version": o.Build.Version, "gitCommit": o.Build.Commit, "goVersion": runtime.Version(),
			"helmCompat": d.HelmVersion(), "helmVersion": b.Version,
		}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.Out, string(out))
	case o.Short:
		// Helm adds +g<commit>; ours already carries build metadata naming us.
		fmt.Fprintln(o.Out, b.Version)
	case o.Build.AsHelm:
		fmt.Fprintf(o.Out, "%#v\n", capabilities.HelmBuildInfo(d, b))
	default:
		fmt.Fprintf(o.Out, "kubectl-chart %s (commit %s, %s), compatible with Helm %s\n",
			o.Build.Version, o.Build.Commit, runtime.Version(), d.HelmVersion())
	}
	return nil
}

// helmBuild is the dialect's Helm release with build metadata naming this
// program and its version (v4.3.1+kubectl-chart.v0.2.0): tools that check
// Helm's version accept it, and it never claims to be Helm's own build.
func (o *VersionOptions) helmBuild(d dialect.Dialect) capabilities.BuildInfo {
	state, commit := "clean", o.Build.Commit
	if strings.HasSuffix(o.Build.Version, "-dirty") {
		state = "dirty"
	}
	if commit == unknownCommit {
		// Helm's own builds without a commit say nothing.
		commit = ""
	}
	return capabilities.BuildInfo{
		Version:      d.HelmVersion() + "+kubectl-chart." + semverBuildIdentifiers(o.Build.Version),
		GitCommit:    commit,
		GitTreeState: state,
		GoVersion:    runtime.Version(),
	}
}

// semverBuildIdentifiers makes v a valid SemVer build-metadata tail: dot-separated
// non-empty identifiers of ASCII letters, digits and hyphens.
func semverBuildIdentifiers(v string) string {
	ids := strings.Split(v, ".")
	out := ids[:0]
	for _, id := range ids {
		id = strings.Map(func(r rune) rune {
			if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, id)
		if id != "" {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return "unknown"
	}
	return strings.Join(out, ".")
}
