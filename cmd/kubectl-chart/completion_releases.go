package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// releaseNamesFromStore lists release names from the store the command's own
// --storage and --bbolt-path select (or their environment defaults), in the
// namespace of -n or the kubeconfig.
func releaseNamesFromStore(flags *genericclioptions.ConfigFlags) func(*cobra.Command, string) ([]string, error) {
	return func(cmd *cobra.Command, _ string) ([]string, error) {
		s := newStorageFlags()
		if f := cmd.Flag("storage"); f != nil {
			s.driver = f.Value.String()
		}
		if f := cmd.Flag("bbolt-path"); f != nil {
			s.bboltPath = f.Value.String()
		}
		store, err := s.ReleaseStore(flags)
		if err != nil {
			return nil, err
		}
		ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
		if err != nil || ns == "" {
			ns = "default"
		}
		if flags.Namespace != nil && *flags.Namespace != "" {
			ns = *flags.Namespace
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		res, err := store.List(ctx, ports.ListQuery{Namespace: ns})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		var names []string
		for _, r := range res.Releases {
			if !seen[r.Name] {
				seen[r.Name] = true
				names = append(names, r.Name)
			}
		}
		return names, nil
	}
}
