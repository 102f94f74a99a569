package main

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func newCmdStackDestroy(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newStackDestroyCmd(f, streams, loadStack)
}

func newStackDestroyCmd(f Factory, streams genericiooptions.IOStreams, load stackLoader) *cobra.Command {
	o := &StackApplyOptions{load: load, streams: streams, destroy: true}
	return o.command(f, &cobra.Command{
		Use:   "destroy",
		Short: "Uninstall every release of the stack, in the reverse order of their needs",
		Long: `Plan the uninstall of every release of the stack and carry it out: a release is
uninstalled once every release that needs it is gone, at most --concurrency at
once, after the permissions were checked in every kube context. A release that
fails to uninstall stops the releases it needs; the summary says per release what
happened.`,
		Example: `  kubectl chart stack destroy -f helmfile.yaml -e dev`,
	})
}
