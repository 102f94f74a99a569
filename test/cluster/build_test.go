package cluster

import (
	"slices"
	"testing"
)

func TestStagingModules(t *testing.T) {
	goMod := []byte(`module k8s.io/kubernetes

require (
	k8s.io/api v0.0.0
	k8s.io/utils v0.0.0-20260210185600-b8788abfbbc2
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	github.com/example/fork => github.com/example/fork v1.2.3
)

replace k8s.io/kms => ./staging/src/k8s.io/kms
`)
	got := stagingModules(goMod)
	want := []string{"k8s.io/api", "k8s.io/client-go", "k8s.io/kms"}
	if !slices.Equal(got, want) {
		t.Errorf("stagingModules = %v, want %v", got, want)
	}
}

func TestStagingVersion(t *testing.T) {
	tests := map[string]struct {
		kubernetes string
		want       string
		wantErr    bool
	}{
		"release":     {kubernetes: "v1.36.3", want: "v0.36.3"},
		"pre-release": {kubernetes: "v1.37.0-rc.1", want: "v0.37.0-rc.1"},
		"not v1":      {kubernetes: "1.36.3", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Versions{Kubernetes: tc.kubernetes}.stagingVersion()
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("stagingVersion = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompleteNeedsEveryFileAndTheStamp(t *testing.T) {
	dir := t.TempDir()
	bins := BinariesIn(dir)
	v := DefaultVersions()
	for _, f := range bins.files() {
		writeFile(t, f, "x")
	}
	if complete(bins, v) {
		t.Fatal("complete without a version stamp")
	}
	writeFile(t, dir+"/versions", v.stamp())
	if !complete(bins, v) {
		t.Fatal("not complete with every file and the stamp")
	}
	other := v
	other.Kwok = "v0.0.1"
	if complete(bins, other) {
		t.Error("complete although the stamp names other versions")
	}
}
