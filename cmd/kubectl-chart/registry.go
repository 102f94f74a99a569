package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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

func newCmdRegistryLogin(streams genericiooptions.IOStreams) *cobra.Command {
	var f chartRefFlags
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
			oc, err := f.ociClient()
			if err != nil {
				return err
			}
			if err := oc.Login(cmd.Context(), host, user, pass); err != nil {
				return err
			}
			fmt.Fprintln(streams.ErrOut, "Login Succeeded")
			return nil
		},
	}
	fs := cmd.Flags()
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
	cmd := &cobra.Command{
		Use:   "logout [host]",
		Short: "Logout from a registry",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host := strings.TrimPrefix(args[0], "oci://")
			oc, err := f.ociClient()
			if err != nil {
				return err
			}
			if err := oc.Logout(cmd.Context(), host); err != nil {
				return err
			}
			fmt.Fprintf(streams.ErrOut, "Removing login credentials for %s\n", host)
			return nil
		},
	}
	addRegistryConfigFlag(cmd.Flags(), &f.registryConfig)
	return cmd
}
