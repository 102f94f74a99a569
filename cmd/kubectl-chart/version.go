package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"text/template"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
)

// VersionOptions prints the version.
type VersionOptions struct {
	genericiooptions.IOStreams
	Build  BuildInfo
	Short  bool
	Output string
	// Template is --template, executed on versionFields as Helm's is.
	Template string
}

// versionFields are what --template sees, under Helm's names.
type versionFields struct {
	Version, GitCommit, GitTreeState, GoVersion, KubeClientVersion string
}

// NewCmdVersion builds `kubectl chart version`.
func NewCmdVersion(streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	o := &VersionOptions{IOStreams: streams, Build: build}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the kubectl-chart version",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().BoolVar(&o.Short, "short", false, "print the version number only")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "output format: json")
	cmd.Flags().StringVar(&o.Template, "template", "", "template for version string format (fields as Helm's: .Version, .GitCommit, .GitTreeState, .GoVersion, .KubeClientVersion)")
	return cmd
}

// Validate checks the output format.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("invalid output format %q: only json is supported", o.Output)
	}
	return nil
}

// Run prints the version.
func (o *VersionOptions) Run() error {
	info := map[string]string{
		"version":    o.Build.Version,
		"gitCommit":  o.Build.Commit,
		"goVersion":  runtime.Version(),
		"helmCompat": capabilities.HelmCompatVersion,
	}
	switch {
	case o.Template != "":
		t, err := template.New("_").Parse(o.Template)
		if err != nil {
			return err
		}
		return t.Execute(o.Out, versionFields{
			Version: o.Build.Version, GitCommit: o.Build.Commit, GoVersion: runtime.Version(),
			KubeClientVersion: kubeClientVersion(),
		})
	case o.Output == "json":
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.Out, string(b))
	case o.Short:
		fmt.Fprintln(o.Out, o.Build.Version)
	default:
		fmt.Fprintf(o.Out, "kubectl-chart %s (commit %s, %s), compatible with Helm %s\n",
			o.Build.Version, o.Build.Commit, runtime.Version(), capabilities.HelmCompatVersion)
	}
	return nil
}

// kubeClientVersion is the Kubernetes minor release our client speaks, as Helm
// 4's .KubeClientVersion (v1.37).
func kubeClientVersion() string {
	kv := capabilities.Default(runtime.Version()).KubeVersion
	return "v" + kv.Major + "." + kv.Minor
}
