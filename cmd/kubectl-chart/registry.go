package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// NewCmdRegistry builds `kubectl chart registry`.
func NewCmdRegistry(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Login to or logout from a registry",
		Long: `Credentials are kept in a docker-compatible config.json
(Helm's, $HELM_REGISTRY_CONFIG or $HELM_CONFIG_HOME/registry/config.json, when
it exists, else $XDG_CONFIG_HOME/kubectl-chart/registry/config.json; or
$KUBECTL_CHART_REGISTRY_CONFIG, or --registry-config).`,
	}
	cmd.AddCommand(newCmdRegistryLogin(streams), newCmdRegistryLogout(streams))
	return cmd
}

// registryOut is where the dialect's Helm says what registry login and logout
// did: Helm 4 on standard output, Helm 3 on standard error.
func registryOut(streams genericiooptions.IOStreams, d dialect.Dialect) io.Writer {
	if d.IsHelm4() {
		return streams.Out
	}
	return streams.ErrOut
}

func newCmdRegistryLogin(streams genericiooptions.IOStreams) *cobra.Command {
	var f chartRefFlags
	var compat compatFlags
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "login [host]",
		Short: "Login to a registry",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host := strings.TrimPrefix(args[0], "oci://")
			if passwordStdin {
				b, err := io.ReadAll(streams.In)
				if err != nil {
					return err
				}
				f.password = strings.TrimRight(string(b), "\r\n")
			}
			if f.username == "" || f.password == "" {
				return errors.New("registry login needs --username and --password (or --password-stdin)")
			}
			user, pass := f.username, f.password
			// Login checks the credentials itself; the client must not send them statically.
			f.username, f.password = "", ""
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			oc, err := f.ociClient(d)
			if err != nil {
				return err
			}
			if err := oc.Login(cmd.Context(), host, user, pass); err != nil {
				return err
			}
			fmt.Fprintln(registryOut(streams, d), "Login Succeeded")
			return nil
		},
	}
	fs := cmd.Flags()
	compat.addReadingCompat(fs)
	addRegistryConfigFlag(fs, &f.registryConfig)
	fs.StringVarP(&f.username, "username", "u", "", "registry username")
	fs.StringVarP(&f.password, "password", "p", "", "registry password or identity token")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read password or identity token from stdin")
	fs.BoolVar(&f.insecureSkipTLSVerify, "insecure", false, "allow connections to TLS registry without certs")
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "use insecure HTTP connections")
	fs.StringVar(&f.caFile, "ca-file", "", "verify certificates of HTTPS-enabled servers using this CA bundle")
	fs.StringVar(&f.certFile, "cert-file", "", "identify registry client using this SSL certificate file")
	fs.StringVar(&f.keyFile, "key-file", "", "identify registry client using this SSL key file")
	return cmd
}

func newCmdRegistryLogout(streams genericiooptions.IOStreams) *cobra.Command {
	var f chartRefFlags
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "logout [host]",
		Short: "Logout from a registry",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host := strings.TrimPrefix(args[0], "oci://")
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			oc, err := f.ociClient(d)
			if err != nil {
				return err
			}
			if err := oc.Logout(cmd.Context(), host); err != nil {
				return err
			}
			fmt.Fprintf(registryOut(streams, d), "Removing login credentials for %s\n", host)
			return nil
		},
	}
	compat.addReadingCompat(cmd.Flags())
	addRegistryConfigFlag(cmd.Flags(), &f.registryConfig)
	return cmd
}
