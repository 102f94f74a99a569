package main

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

func TestCompletionReleaseNames(t *testing.T) {
	isolatePlugins(t)
	db := filepath.Join(t.TempDir(), "releases.db")
	store := bbolt.New(db, 0)
	for _, r := range []struct {
		name, ns string
		rev      int
	}{{"web", "prod", 1}, {"web", "prod", 2}, {"worker", "prod", 1}, {"api", "prod", 1}, {"other", "dev", 1}} {
		err := store.Create(context.Background(), &release.Release{
			Name: r.name, Namespace: r.ns, Version: r.rev,
			Info:  &release.Info{Status: release.StatusDeployed},
			Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "c", Version: "1.0.0"}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(StorageEnv, "")
	tests := map[string]struct {
		args []string
		want []string
	}{
		"status":           {args: []string{"status", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, ""}, want: []string{"api", "web", "worker"}},
		"prefix":           {args: []string{"history", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, "w"}, want: []string{"web", "worker"}},
		"other namespace":  {args: []string{"status", "--namespace", "dev", "--storage", "bbolt", "--bbolt-path", db, ""}, want: []string{"other"}},
		"second arg":       {args: []string{"status", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, "web", ""}},
		"uninstall many":   {args: []string{"uninstall", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, "web", "a"}, want: []string{"api"}},
		"get values":       {args: []string{"get", "values", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, "a"}, want: []string{"api"}},
		"upgrade release":  {args: []string{"upgrade", "-n", "prod", "--storage", "bbolt", "--bbolt-path", db, "a"}, want: []string{"api"}},
		"storage from env": {args: []string{"status", "-n", "dev", "--bbolt-path", db, ""}, want: []string{"other"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if name == "storage from env" {
				t.Setenv(StorageEnv, "bbolt")
			}
			got, directive := complete(t, tc.args...)
			if !reflect.DeepEqual(got, tc.want) || directive != ":4" {
				t.Errorf("__complete %q = %q %s, want %q :4", tc.args, got, directive, tc.want)
			}
		})
	}
}
