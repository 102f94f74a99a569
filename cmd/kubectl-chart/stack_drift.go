package main

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func newCmdStackDrift(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newStackDriftCmd(f, streams, loadStack)
}

func newStackDriftCmd(f Factory, streams genericiooptions.IOStreams, load stackLoader) *cobra.Command {
	o := &StackStatusOptions{load: load, streams: streams, drift: true}
	cmd := o.command(f, &cobra.Command{
		Use:   "drift",
		Short: "Find what changed behind the backs of the stack's releases, and put it back",
		Long: `Compare each release of the stack with the live objects, in every kube context, as
'kubectl chart drift' does for one release: the status table, then per release that
drifted each object and field. --correct puts the releases' objects back, each under
its release's lock. --detailed-exitcode: 0 no drift, 2 drift, 1 error.`,
		Example: `  kubectl chart stack drift -e prod --detailed-exitcode
  kubectl chart stack drift -e prod --correct`,
	})
	fs := cmd.Flags()
	fs.BoolVar(&o.correct, "correct", false, "put back what drifted (missing objects created, drifted fields taken back)")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 0 when nothing drifted, 2 when something did, 1 on error")
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "show the values of Secrets")
	return cmd
}
