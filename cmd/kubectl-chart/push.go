package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdPush builds `kubectl chart push`.
func NewCmdPush(streams genericiooptions.IOStreams) *cobra.Command {
	var f chartRefFlags
	// compat carries $KUBECTL_CHART_COMPAT: whose stream the push is reported on.
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "push [chart] [remote]",
		Short: "Push a chart archive to an OCI registry",
		Long: `Upload a chart archive to an OCI registry as REMOTE/NAME:VERSION. A NAME-VERSION.tgz.prov
next to the archive is pushed too.`,
		Example: `  kubectl chart push mychart-0.1.0.tgz oci://localhost:5000/charts`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !strings.HasPrefix(args[1], "oci://") {
				return fmt.Errorf("unexpected remote %q: push supports only oci:// references", args[1])
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("read chart archive: %w", err)
			}
			prov, err := os.ReadFile(args[0] + ".prov")
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			oc, err := f.ociClient(d)
			if err != nil {
				return err
			}
			res, err := oc.Push(cmd.Context(), data, prov, args[1])
			if err != nil {
				return err
			}
			reportOCI(streams, d, "Pushed", res.Ref, res.Digest)
			return nil
		},
	}
	fs := cmd.Flags()
	compat.addReadingCompat(fs)
	addRegistryConfigFlag(fs, &f.registryConfig)
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "use insecure HTTP connections for the chart upload")
	fs.BoolVar(&f.insecureSkipTLSVerify, "insecure-skip-tls-verify", false, "skip tls certificate checks for the chart upload")
	fs.StringVar(&f.caFile, "ca-file", "", "verify certificates of HTTPS-enabled servers using this CA bundle")
	fs.StringVar(&f.certFile, "cert-file", "", "identify registry client using this SSL certificate file")
	fs.StringVar(&f.keyFile, "key-file", "", "identify registry client using this SSL key file")
	fs.StringVar(&f.username, "username", "", "chart repository username where to locate the requested chart")
	fs.StringVar(&f.password, "password", "", "chart repository password where to locate the requested chart")
	return cmd
}
