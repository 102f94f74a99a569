package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// releaseNamesFromStore lists release names from the store the command's own
// --storage and --bbolt-path select (or their environment defaults), in the
// namespace of -n or the kubeconfig.
func releaseNamesFromStore(f Factory) func(*cobra.Command, string) ([]string, error) {
	return func(cmd *cobra.Command, _ string) ([]string, error) {
		s := f.StorageDefaults()
		if fl := cmd.Flag("storage"); fl != nil {
			s.Driver = fl.Value.String()
		}
		if fl := cmd.Flag("bbolt-path"); fl != nil {
			s.BboltPath = fl.Value.String()
		}
		store, err := f.ReleaseStore(s)
		if err != nil {
			return nil, err
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		res, err := store.List(ctx, ports.ListQuery{Namespace: f.Namespace()})
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
