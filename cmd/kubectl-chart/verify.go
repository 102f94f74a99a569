package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdVerify builds `kubectl chart verify`.
func NewCmdVerify(streams genericiooptions.IOStreams) *cobra.Command {
	var keyring string
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "verify PATH",
		Short: "Verify that a chart at the given path has been signed and is valid",
		Long:  `Check a chart archive against its PATH.prov file: the OpenPGP signature, against the keyring, and the archive's sha256 sum.`,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			v, err := verifyChartFile(d, args[0], keyring)
			if err != nil {
				return err
			}
			for name := range v.SignedBy.Identities {
				fmt.Fprintf(streams.Out, "Signed by: %s\n", name)
			}
			fmt.Fprintf(streams.Out, "Using Key With Fingerprint: %X\nChart Hash Verified: %s\n", v.SignedBy.PrimaryKey.Fingerprint, v.FileHash)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyring, "keyring", "", "keyring containing public keys")
	compat.addReadingCompat(cmd.Flags())
	return cmd
}
