package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
)

// newCmdPluginInstall builds `plugin install`.
func newCmdPluginInstall(cfg pluginConfig, streams genericiooptions.IOStreams) *cobra.Command {
	var version string
	cmd := &cobra.Command{
		Use:   "install DIR|FILE.tgz|URL",
		Short: "Install a plugin from a directory, a .tgz archive, an http(s) URL of one, or a git repository",
		Example: `  kubectl chart plugin install ./my-post-renderer
  kubectl chart plugin install https://example.com/helm-s3-0.16.0.tgz
  kubectl chart plugin install https://github.com/databus23/helm-diff --version '>=3.9.0'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := plugin.Installer{Dir: cfg.installDir(), Version: version}.Install(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Installed plugin: %s\n", p.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "for a git repository: the tag, branch or commit, or a semantic version constraint the tag must meet (the newest that does); without it, the default branch")
	return cmd
}

// newCmdPluginUpdate builds `plugin update`, for plugins installed from git
// repositories, with Helm's messages.
func newCmdPluginUpdate(cfg pluginConfig, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "update NAME...",
		Aliases: []string{"up"},
		Short:   "Update plugins installed from git repositories",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("please provide plugin name to update")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in := plugin.Installer{Dir: cfg.installDir()}
			var errs []error
			for _, name := range args {
				_, err := in.Update(cmd.Context(), name)
				switch {
				case errors.Is(err, plugin.ErrNotInstalled):
					errs = append(errs, fmt.Errorf("plugin: %s not found", name))
				case err != nil:
					errs = append(errs, fmt.Errorf("failed to update plugin %s, got error (%w)", name, err))
				default:
					fmt.Fprintf(streams.Out, "Updated plugin: %s\n", name)
				}
			}
			return errors.Join(errs...)
		},
	}
}
