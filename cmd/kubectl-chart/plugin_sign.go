package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
)

// pluginPackageOptions are `plugin package`'s flags.
type pluginPackageOptions struct {
	sign                              bool
	key, keyring, passphraseFile, dst string
}

// newCmdPluginPackage builds `plugin package`, Helm 4's: a plugin directory to
// NAME-VERSION.tgz, signed (NAME-VERSION.tgz.prov) unless --sign=false.
func newCmdPluginPackage(streams genericiooptions.IOStreams) *cobra.Command {
	var o pluginPackageOptions
	cmd := &cobra.Command{
		Use:   "package [PATH]",
		Short: "Package a plugin directory into a plugin archive, signed by default",
		Long: `Package a plugin directory into NAME-VERSION.tgz, and sign it with a PGP private key
into NAME-VERSION.tgz.prov (Helm 4's format; 'plugin verify' and 'plugin install' check it).
Use --sign=false to skip signing.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return o.run(streams, args[0]) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.sign, "sign", true, "use a PGP private key to sign this plugin")
	f.StringVar(&o.key, "key", "", "name of the key to use when signing. Used if --sign is true")
	f.StringVar(&o.keyring, "keyring", "", "location of a public keyring")
	f.StringVar(&o.passphraseFile, "passphrase-file", "", `location of a file which contains the passphrase for the signing key. Use "-" to read from stdin.`)
	f.StringVarP(&o.dst, "destination", "d", ".", "location to write the plugin tarball.")
	return cmd
}

func (o *pluginPackageOptions) run(streams genericiooptions.IOStreams, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("plugin package only supports directories, not tarballs")
	}
	var buf bytes.Buffer
	p, err := plugin.Package(dir, &buf)
	if err != nil {
		return fmt.Errorf("invalid plugin directory: %w", err)
	}
	var pass []byte
	if o.sign {
		if _, err := os.Stat(o.keyring); err != nil {
			return fmt.Errorf("error reading from keyring: %w", err)
		}
		if pass, err = readPassphrase(o.passphraseFile, streams.In); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(streams.Out, "WARNING: Skipping plugin signing. This is not recommended for plugins intended for distribution.")
	}
	if err := os.MkdirAll(o.dst, 0o755); err != nil {
		return err
	}
	target := filepath.Join(o.dst, fmt.Sprintf("%s-%s.tgz", p.Name, p.Version))
	if o.sign {
		prov, err := plugin.Sign(buf.Bytes(), filepath.Base(target), o.keyring, o.key, pass)
		if err != nil {
			return fmt.Errorf("failed to sign plugin: %w", err)
		}
		if err := atomicfile.Write(target, buf.Bytes(), 0o644); err != nil {
			return err
		}
		if err := atomicfile.Write(target+".prov", prov, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(streams.Out, "Successfully signed. Signature written to: %s\n", target+".prov")
	} else if err := atomicfile.Write(target, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "Successfully packaged plugin and saved it to: %s\n", target)
	return nil
}

// newCmdPluginVerify builds `plugin verify`, Helm 4's: a plugin archive
// against its .prov and the keyring.
func newCmdPluginVerify(streams genericiooptions.IOStreams) *cobra.Command {
	var keyring string
	cmd := &cobra.Command{
		Use:   "verify [PATH]",
		Short: "Verify that a plugin archive at the given path has been signed and is valid",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := args[0]
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			if fi.IsDir() {
				return errors.New("directory verification not supported - only plugin tarballs can be verified")
			}
			if !strings.HasSuffix(path, ".tgz") && !strings.HasSuffix(path, ".gz") {
				return errors.New("plugin file must be a gzipped tarball (.tar.gz or .tgz)")
			}
			if _, err := os.Stat(path + ".prov"); err != nil {
				return fmt.Errorf("could not find provenance file %s: %w", path+".prov", err)
			}
			archive, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("failed to read plugin file: %w", err)
			}
			prov, err := os.ReadFile(path + ".prov")
			if err != nil {
				return fmt.Errorf("failed to read provenance file: %w", err)
			}
			v, err := plugin.Verify(archive, filepath.Base(path), prov, keyring)
			if err != nil {
				return err
			}
			printSigners(streams, v)
			fmt.Fprintf(streams.Out, "Plugin Hash Verified: %s\n", v.FileHash)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyring, "keyring", "", "keyring containing public keys")
	return cmd
}
