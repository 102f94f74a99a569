package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
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
	// registry settings for oci:// sources, Helm 4's flags.
	plainHTTP, insecure       bool
	caFile, certFile, keyFile string
	username, password        string
}

// pullOCI downloads a plugin artifact with the registry flags and logins.
func (o *pluginInstallOptions) pullOCI(registryConfig string) func(context.Context, string) ([]byte, []byte, error) {
	return func(ctx context.Context, ref string) ([]byte, []byte, error) {
		c, err := oci.NewClient(oci.Options{CredentialsFile: registryConfig, PlainHTTP: o.plainHTTP,
			InsecureSkipTLSVerify: o.insecure, CAFile: o.caFile, CertFile: o.certFile, KeyFile: o.keyFile,
			Username: o.username, Password: o.password})
		if err != nil {
			return nil, nil, err
		}
		p, err := c.PullPlugin(ctx, ref)
		if err != nil {
			return nil, nil, err
		}
		return p.Archive, p.Prov, nil
	}
}

// newCmdPluginInstall builds `plugin install`. In the Helm 4 dialect (the
// default) archives are verified against their .prov unless --verify=false, as
// Helm 4 does; in the Helm 3 dialect only with --verify.
func newCmdPluginInstall(hooks pluginHooks) *cobra.Command {
	var o pluginInstallOptions
	cmd := &cobra.Command{
		Use:     "install [options] <path|url>",
		Aliases: []string{"add"},
		Short:   "Install a plugin from a directory, a .tgz archive, an http(s) URL of one, or a git repository",
		Example: `  kubectl chart plugin install ./my-post-renderer
  kubectl chart plugin install https://example.com/helm-s3-0.16.0.tgz     # verified against .tgz.prov
  kubectl chart plugin install https://github.com/databus23/helm-diff --version '>=3.9.0' --verify=false`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, hooks, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "for a git repository: the tag, branch or commit, or a semantic version constraint the tag must meet (the newest that does); without it, the default branch")
	f.BoolVar(&o.verify, "verify", true, "verify the plugin signature (FILE.prov or URL.prov) before installing; with --compat helm3 only when given")
	f.StringVar(&o.keyring, "keyring", "", "location of public keys used for verification")
	f.BoolVar(&o.plainHTTP, "plain-http", false, "use insecure HTTP connections for the plugin download")
	f.BoolVar(&o.insecure, "insecure-skip-tls-verify", false, "skip tls certificate checks for the plugin download")
	f.StringVar(&o.caFile, "ca-file", "", "verify certificates of HTTPS-enabled servers using this CA bundle")
	f.StringVar(&o.certFile, "cert-file", "", "identify registry client using this SSL certificate file")
	f.StringVar(&o.keyFile, "key-file", "", "identify registry client using this SSL key file")
	f.StringVar(&o.username, "username", "", "registry username")
	f.StringVar(&o.password, "password", "", "registry password")
	helmOnly(f, dialect.Helm4, "verify", "keyring", "plain-http", "insecure-skip-tls-verify", "ca-file", "cert-file", "key-file", "username", "password")
	o.compat.AddFlags(f, dialect.Helm4)
	return cmd
}

func (o *pluginInstallOptions) run(cmd *cobra.Command, hooks pluginHooks, src string) error {
	streams := hooks.streams
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
	in := plugin.Installer{Dir: hooks.cfg.installDir(), Version: o.version, Verify: verify, Keyring: o.keyring,
		PullOCI: o.pullOCI(hooks.f.Settings().files.registryConfig)}
	p, v, err := in.InstallVerified(cmd.Context(), src)
	if err != nil {
		return err
	}
	if v != nil {
		printSigners(streams, v)
		fmt.Fprintf(streams.Out, "Plugin Hash Verified: %s\n", v.FileHash)
	}
	// As in Helm, a failing hook leaves the plugin installed.
	if err := hooks.run(cmd.Context(), p, plugin.HookInstall, d); err != nil {
		return err
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
// repositories, with Helm's messages; each updated plugin's update hook runs.
func newCmdPluginUpdate(hooks pluginHooks) *cobra.Command {
	var compat compatFlags
	cmd := &cobra.Command{
		Use:     "update <plugin>...",
		Aliases: []string{"up"},
		Short:   "Update plugins installed from git repositories",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("please provide plugin name to update")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			in := plugin.Installer{Dir: hooks.cfg.installDir()}
			var errs []error
			for _, name := range args {
				p, err := in.Update(cmd.Context(), name)
				if err == nil {
					err = hooks.run(cmd.Context(), p, plugin.HookUpdate, d)
				}
				switch {
				case errors.Is(err, plugin.ErrNotInstalled):
					errs = append(errs, fmt.Errorf("plugin: %s not found", name))
				case err != nil:
					errs = append(errs, fmt.Errorf("failed to update plugin %s, got error (%w)", name, err))
				default:
					fmt.Fprintf(hooks.streams.Out, "Updated plugin: %s\n", name)
				}
			}
			return errors.Join(errs...)
		},
	}
	compat.AddFlags(cmd.Flags(), dialect.Helm4)
	return cmd
}

// newCmdPluginUninstall builds `plugin uninstall`; as in Helm, a plugin's
// delete hook runs once its directory is gone.
func newCmdPluginUninstall(hooks pluginHooks) *cobra.Command {
	var compat compatFlags
	cmd := &cobra.Command{
		Use:     "uninstall <plugin>...",
		Aliases: []string{"rm", "remove"},
		Short:   "Uninstall installed plugins",
		Args:    minimumNArgs(1),
		ValidArgsFunction: func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			entries, _ := os.ReadDir(hooks.cfg.installDir())
			var out []string
			for _, e := range entries {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasPrefix(e.Name(), toComplete) {
					out = append(out, e.Name())
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			in := plugin.Installer{Dir: hooks.cfg.installDir()}
			for _, name := range args {
				p, err := in.Uninstall(name)
				if err != nil {
					return err
				}
				if err := hooks.run(cmd.Context(), p, plugin.HookDelete, d); err != nil {
					return fmt.Errorf("failed to uninstall plugin %s, got error (%w)", name, err)
				}
				fmt.Fprintf(hooks.streams.Out, "Uninstalled plugin: %s\n", name)
			}
			return nil
		},
	}
	compat.AddFlags(cmd.Flags(), dialect.Helm4)
	return cmd
}

// pluginHooks runs plugins' install, update and delete hooks as the dialect's
// Helm does: Helm 3 gives them its `helm env` variables, warns about a
// plugin.yaml with both platformHooks and hooks and skips a hook without a
// command for this platform; Helm 4 gives them only the plugin's variables
// and refuses both.
type pluginHooks struct {
	cfg     pluginConfig
	flags   *genericclioptions.ConfigFlags
	f       Factory
	streams genericiooptions.IOStreams
}

func (h pluginHooks) run(ctx context.Context, p *plugin.Plugin, event string, d dialect.Dialect) error {
	o := plugin.HookOptions{Platform: plugin.Host(), Getenv: h.cfg.env(), Stdout: h.streams.Out, Stderr: h.streams.ErrOut}
	if d == dialect.Helm3 {
		if p.BothHooks() {
			fmt.Fprintf(h.streams.Out, "WARNING: both 'platformHooks' and 'hooks' are set in %q (this will become an error in a future Helm version)\n", p.Source)
		}
		o.Env, o.SkipUnmatched = helmEnv(h.flags, h.f, dialect.Helm3), true
	} else {
		o.RefuseBoth = true
	}
	err := plugin.RunHook(ctx, p, event, o)
	switch {
	case errors.Is(err, plugin.ErrBothHooks) && event == plugin.HookInstall:
		return fmt.Errorf("plugin is installed but unusable: failed to load plugin %q: %w", p.Dir, err)
	case errors.Is(err, plugin.ErrBothHooks):
		return fmt.Errorf("failed to load plugin %q: %w", p.Dir, err)
	}
	return err
}
