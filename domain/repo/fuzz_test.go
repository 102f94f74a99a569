package repo_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// FuzzParseIndex: any input gives an index or an error, never a panic, and a parsed
// index survives Get, Search and Marshal.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(goodIndex))
	f.Add([]byte("apiVersion: v1\nentries:\n  a:\n  - null\n  - {version: x}\n"))
	f.Add([]byte(`{"apiVersion":"v1","entries":{"a":[{"name":"a","version":"1.0.0","urls":["a.tgz"]}]}}`))
	f.Add([]byte("apiVersion: v1\nentries:\n  a:\n  - name: a\n    version: \"1."))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, _, err := repo.ParseIndex(data, "fuzz")
		if err != nil {
			return
		}
		for name := range idx.Entries {
			_, _ = idx.Get(name, "")
			_, _ = idx.GetDevel(name, ">=1")
		}
		if _, err := repo.Search(map[string]*repo.Index{"r": idx}, repo.SearchQuery{Term: "a", AllVersions: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := idx.Marshal(); err != nil {
			t.Fatal(err)
		}
	})
}
