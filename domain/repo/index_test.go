package repo_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/repo"
)

const goodIndex = `apiVersion: v1
entries:
  nginx:
  - apiVersion: v2
    name: nginx
    version: 1.2.0
    appVersion: "1.25"
    description: A web server
    keywords: [http, proxy]
    urls: [charts/nginx-1.2.0.tgz]
    digest: abc
  - apiVersion: v2
    name: nginx
    version: 1.10.0
    urls: [https://other.example/nginx-1.10.0.tgz]
  - apiVersion: v2
    name: nginx
    version: 2.0.0-rc.1
    urls: [nginx-2.0.0-rc.1.tgz]
  redis:
  - apiVersion: v2
    name: redis
    version: 0.3.0
    description: key value store with nginx-like speed
    urls: [redis-0.3.0.tgz]
generated: "2024-01-01T00:00:00Z"
`

func TestParseIndex(t *testing.T) {
	idx, warnings, err := repo.ParseIndex([]byte(goodIndex), "index.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if got := idx.Entries["nginx"][0].Version; got != "2.0.0-rc.1" {
		t.Errorf("newest first: got %s", got)
	}
	tests := map[string]struct {
		constraint string
		devel      bool
		want       string
	}{
		"newest stable":   {"", false, "1.10.0"},
		"newest devel":    {"", true, "2.0.0-rc.1"},
		"caret range":     {"^1.2", false, "1.10.0"},
		"tilde range":     {"~1.2.0", false, "1.2.0"},
		"exact":           {"1.2.0", false, "1.2.0"},
		"exact prerelase": {"2.0.0-rc.1", false, "2.0.0-rc.1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var cv *repo.ChartVersion
			var err error
			if tc.devel {
				cv, err = idx.GetDevel("nginx", tc.constraint)
			} else {
				cv, err = idx.Get("nginx", tc.constraint)
			}
			if err != nil {
				t.Fatal(err)
			}
			if cv.Version != tc.want {
				t.Errorf("got %s, want %s", cv.Version, tc.want)
			}
		})
	}
	if _, err := idx.Get("nginx", ">=3"); !errors.Is(err, repo.ErrNoChartVersion) {
		t.Errorf("err = %v, want ErrNoChartVersion", err)
	}
	if _, err := idx.Get("nope", ""); !errors.Is(err, repo.ErrNoChartName) {
		t.Errorf("err = %v, want ErrNoChartName", err)
	}
}

func TestParseIndexBadInput(t *testing.T) {
	tests := map[string]struct {
		data    string
		wantErr string
		is      error
	}{
		"empty":         {data: "", is: repo.ErrEmptyIndex},
		"whitespace":    {data: "\n  \n", is: repo.ErrEmptyIndex},
		"truncated":     {data: goodIndex[:len(goodIndex)/3], wantErr: "index.yaml"},
		"truncated mid": {data: "apiVersion: v1\nentries:\n  nginx:\n  - name: nginx\n    version: \"1.", wantErr: "line"},
		"no apiVersion": {data: "entries: {}\n", is: repo.ErrNoAPIVersion},
		"not yaml":      {data: "\x00\x01\x02garbage: [", wantErr: "invalid index"},
		"duplicate key": {data: "apiVersion: v1\nentries:\n  a: []\n  a: []\n", wantErr: `key "a" already set`},
		"duplicate version": {data: `apiVersion: v1
entries:
  a:
  - {name: a, version: 1.0.0, apiVersion: v2, urls: [a.tgz]}
  - {name: a, version: 1.0.0, apiVersion: v2, urls: [b.tgz]}
`, wantErr: `chart "a" lists version "1.0.0" more than once`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := repo.ParseIndex([]byte(tc.data), "index.yaml")
			if err == nil {
				t.Fatal("want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), "index.yaml") {
				t.Errorf("err = %v does not name the file", err)
			}
		})
	}
}

func TestParseIndexTooLarge(t *testing.T) {
	_, _, err := repo.ParseIndexLimit([]byte(goodIndex), "index.yaml", 100)
	if !errors.Is(err, repo.ErrIndexTooLarge) || !strings.Contains(err.Error(), "index.yaml") {
		t.Errorf("err = %v, want ErrIndexTooLarge naming the file", err)
	}
}

func TestParseIndexSkipsNonSemVer(t *testing.T) {
	data := `apiVersion: v1
entries:
  a:
  - {name: a, version: latest, apiVersion: v2, urls: [a.tgz]}
  - {name: a, version: 1.0.0, apiVersion: v2, urls: [a-1.0.0.tgz]}
  - null
`
	idx, warnings, err := repo.ParseIndex([]byte(data), "index.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Entries["a"]) != 1 || idx.Entries["a"][0].Version != "1.0.0" {
		t.Errorf("entries: %+v", idx.Entries["a"])
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings = %v, want 2", warnings)
	}
	joined := warnings[0].String() + warnings[1].String()
	if !strings.Contains(joined, `version "latest"`) || !strings.Contains(joined, "empty entry") {
		t.Errorf("warnings do not name the entries: %s", joined)
	}
}

func TestSearch(t *testing.T) {
	idx, _, err := repo.ParseIndex([]byte(goodIndex), "index.yaml")
	if err != nil {
		t.Fatal(err)
	}
	indexes := map[string]*repo.Index{"stable": idx}
	tests := map[string]struct {
		q    repo.SearchQuery
		want []string
	}{
		"all newest":      {repo.SearchQuery{}, []string{"stable/nginx 1.10.0", "stable/redis 0.3.0"}},
		"name first":      {repo.SearchQuery{Term: "nginx"}, []string{"stable/nginx 1.10.0", "stable/redis 0.3.0"}},
		"keyword":         {repo.SearchQuery{Term: "proxy", AllVersions: true}, []string{"stable/nginx 1.2.0"}},
		"versions":        {repo.SearchQuery{Term: "nginx", AllVersions: true, Version: "^1"}, []string{"stable/nginx 1.10.0", "stable/nginx 1.2.0"}},
		"devel":           {repo.SearchQuery{Term: "stable/nginx", Devel: true}, []string{"stable/nginx 2.0.0-rc.1"}},
		"regexp":          {repo.SearchQuery{Term: "^re", Regexp: true}, []string{"stable/redis 0.3.0"}},
		"constraint none": {repo.SearchQuery{Term: "nginx", Version: ">5"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res, err := repo.Search(indexes, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				got = append(got, r.Name+" "+r.Chart.Version)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := repo.Search(indexes, repo.SearchQuery{Version: "not a range"}); err == nil {
		t.Error("invalid constraint: want an error")
	}
	if _, err := repo.Search(indexes, repo.SearchQuery{Term: "(", Regexp: true}); err == nil {
		t.Error("invalid regexp: want an error")
	}
}

func TestIndexRoundTripAndURLs(t *testing.T) {
	idx := repo.NewIndex(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := idx.Add(&chart.Metadata{APIVersion: "v2", Name: "a", Version: "1.0.0"}, "a-1.0.0.tgz", "http://127.0.0.1:1/charts", "d1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	data, err := idx.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := repo.ParseIndex(data, "gen")
	if err != nil {
		t.Fatal(err)
	}
	if u := back.Entries["a"][0].URLs[0]; u != "http://127.0.0.1:1/charts/a-1.0.0.tgz" {
		t.Errorf("url %s", u)
	}
	for _, tc := range []struct{ repoURL, chartURL, want string }{
		{"http://h/r", "a.tgz", "http://h/r/a.tgz"},
		{"http://h/r/", "charts/a.tgz", "http://h/r/charts/a.tgz"},
		{"http://h/r", "https://o/a.tgz", "https://o/a.tgz"},
		{"http://h/r?x=1", "a.tgz", "http://h/r/a.tgz"},
	} {
		got, err := repo.ResolveURL(tc.repoURL, tc.chartURL)
		if err != nil || got != tc.want {
			t.Errorf("ResolveURL(%q, %q) = %q, %v; want %q", tc.repoURL, tc.chartURL, got, err, tc.want)
		}
	}
}

func TestRepositoriesFile(t *testing.T) {
	f, err := repo.ParseFile(nil, "repositories.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f.Update(&repo.Entry{Name: "b", URL: "http://b"})
	f.Update(&repo.Entry{Name: "a", URL: "http://a"})
	f.Update(&repo.Entry{Name: "a", URL: "http://a2"})
	if got := f.Get("a").URL; got != "http://a2" {
		t.Errorf("update: %s", got)
	}
	data, _ := f.Marshal()
	back, err := repo.ParseFile(data, "repositories.yaml")
	if err != nil || strings.Join(back.Names(), ",") != "a,b" {
		t.Fatalf("round trip: %v %v", back.Names(), err)
	}
	if !back.Remove("a") || back.Remove("a") {
		t.Error("remove")
	}
	if _, err := repo.ParseFile([]byte("repositories: [null]"), "r.yaml"); err == nil {
		t.Error("null entry: want an error")
	}
	for _, bad := range []string{"", ".", "..", "a/b", "-x", "a b"} {
		if repo.ValidateName(bad) == nil {
			t.Errorf("ValidateName(%q) accepted", bad)
		}
	}
}
