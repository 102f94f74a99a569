package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// pluginInstallOptions are `plugin install`'s flags.
type pluginInstallOptions struct {
	version string
	verify  bool
	keyring string
	compat  compatFlags
}

// newCmdPluginInstall builds `plugin install`. In the Helm 4 dialect (the
// default) archives are verified against their .prov unless --verify=false, as
// Helm 4 does; in the Helm 3 dialect only with --verify.
func newCmdPluginInstall(cfg pluginConfig, streams genericiooptions.IOStreams) *cobra.Command {
	var o pluginInstallOptions
	cmd := &cobra.Command{
		Use:     "install DIR|FILE.tgz|URL",
		Aliases: []string{"add"},
		Short:   "Install a plugin from a directory, a .tgz archive, an http(s) URL of one, or a git repository",
		Example: `  kubectl chart plugin install ./my-post-renderer
  kubectl chart plugin install https://example.com/helm-s3-0.16.0.tgz     # verified against .tgz.prov
  kubectl chart plugin install https://github.com/databus23/helm-diff --version '>=3.9.0' --verify=false`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, cfg, streams, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "for a git repository: the tag, branch or commit, or a semantic version constraint the tag must meet (the newest that does); without it, the default branch")
	f.BoolVar(&o.verify, "verify", true, "verify the plugin signature (FILE.prov or URL.prov) before installing; with --compat helm3 only when given")
	f.StringVar(&o.keyring, "keyring", "", "location of public keys used for verification")
	o.compat.AddFlags(f, dialect.Helm4)
	return cmd
}

func (o *pluginInstallOptions) run(cmd *cobra.Command, cfg pluginConfig, streams genericiooptions.IOStreams, src string) error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	verify := o.verify
	if d == dialect.Helm3 && !cmd.Flags().Changed("verify") {
		verify = false
	}
	if fi, err := os.Stat(src); err == nil && fi.IsDir() {
		if d != dialect.Helm3 {
			fmt.Fprintln(streams.Out, "Installing plugin from local directory (development mode)")
		}
		verify = false
	} else if !verify && d != dialect.Helm3 {
		fmt.Fprintln(streams.Out, "WARNING: Skipping plugin signature verification")
	}
	if verify {
		if !plugin.SupportsVerification(src) {
			return plugin.ErrNoVerification
		}
		fmt.Fprintln(streams.Out, "Verifying plugin signature...")
	}
	in := plugin.Installer{Dir: cfg.installDir(), Version: o.version, Verify: verify, Keyring: o.keyring}
	p, v, err := in.InstallVerified(cmd.Context(), src)
	if err != nil {
		return err
	}
	if v != nil {
		printSigners(streams, v)
		fmt.Fprintf(streams.Out, "Plugin Hash Verified: %s\n", v.FileHash)
	}
	fmt.Fprintf(streams.Out, "Installed plugin: %s\n", p.Name)
	return nil
}

// printSigners prints who signed a verified archive, as Helm does.
func printSigners(streams genericiooptions.IOStreams, v *provenance.Verification) {
	for name := range v.SignedBy.Identities {
		fmt.Fprintf(streams.Out, "Signed by: %s\n", name)
	}
	fmt.Fprintf(streams.Out, "Using Key With Fingerprint: %X\n", v.SignedBy.PrimaryKey.Fingerprint)
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
