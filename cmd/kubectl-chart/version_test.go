package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// runVersion runs the version command of a binary stamped v9.9.9 (commit abc),
// invoked as helm or not, with $KUBECTL_CHART_COMPAT set to compat.
func runVersion(t *testing.T, asHelm bool, compat string, args ...string) (string, string, error) {
	t.Helper()
	t.Setenv("KUBECTL_CHART_COMPAT", compat)
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	args = append([]string{"version"}, args...)
	root := newRootCmdFor(streams, BuildInfo{Version: "v9.9.9", Commit: "abc", AsHelm: asHelm}, args)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// Tools read Helm's version with --short or --template and require a SemVer
// of the major they support: the dialect's Helm, with build metadata naming us.
func TestVersionIsHelmsWithOurBuild(t *testing.T) {
	tests := map[string]struct {
		asHelm  bool
		compat  string
		args    []string
		want    string
		wantErr string
	}{
		"short, helm4":          {compat: "helm4", args: []string{"--short"}, want: "v4.3.1+kubectl-chart.v9.9.9\n"},
		"short, helm3":          {compat: "helm3", args: []string{"--short"}, want: "v3.22.0+kubectl-chart.v9.9.9\n"},
		"short as helm":         {asHelm: true, compat: "helm4", args: []string{"--short"}, want: "v4.3.1+kubectl-chart.v9.9.9\n"},
		"template":              {compat: "helm4", args: []string{"--template", "{{ .Version }} {{ .GitCommit }} {{ .KubeClientVersion }}"}, want: "v4.3.1+kubectl-chart.v9.9.9 abc v1.37"},
		"template, helm3 field": {compat: "helm3", args: []string{"--template", "{{ .KubeClientVersion }}"}, wantErr: `template: _:1:3: executing "_" at <.KubeClientVersion>: can't evaluate field KubeClientVersion in type version.BuildInfo`},
		"as helm, helm4": {asHelm: true, compat: "helm4",
			want: `version.BuildInfo{Version:"v4.3.1+kubectl-chart.v9.9.9", GitCommit:"abc", GitTreeState:"clean", GoVersion:"GO", KubeClientVersion:"v1.37"}` + "\n"},
		"as helm, helm3": {asHelm: true, compat: "helm3",
			want: `version.BuildInfo{Version:"v3.22.0+kubectl-chart.v9.9.9", GitCommit:"abc", GitTreeState:"clean", GoVersion:"GO"}` + "\n"},
		"helm3's --client":         {asHelm: true, compat: "helm3", args: []string{"--client", "--short"}, want: "v3.22.0+kubectl-chart.v9.9.9\n"},
		"helm4 has no --client":    {asHelm: true, compat: "helm4", args: []string{"--client", "extra"}, wantErr: "unknown flag: --client"},
		"helm has no -o":           {asHelm: true, compat: "helm4", args: []string{"-o", "json"}, wantErr: "unknown shorthand flag: 'o' in -o"},
		"ours, -o json":            {compat: "helm4", args: []string{"-o", "json"}, want: `"helmVersion": "v4.3.1+kubectl-chart.v9.9.9"`},
		"ours, default":            {compat: "helm3", want: "kubectl-chart v9.9.9 (commit abc, GO), compatible with Helm v3.22.0\n"},
		"arguments named as helm":  {asHelm: true, compat: "helm4", args: []string{"extra"}, wantErr: "\"helm version\" accepts no arguments\n\nUsage:  helm version [flags]"},
		"arguments named as ours ": {compat: "helm4", args: []string{"extra"}, wantErr: "\"kubectl chart version\" accepts no arguments\n\nUsage:  kubectl chart version [flags]"},
	}
	goVersion := regexp.MustCompile(`go1\.[0-9.]+`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			isolatePlugins(t)
			out, _, err := runVersion(t, tc.asHelm, tc.compat, tc.args...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := goVersion.ReplaceAllString(out, "GO"); !strings.Contains(got, tc.want) {
				t.Errorf("output = %q, want %q", got, tc.want)
			}
		})
	}
}

// What tools parse is a version they accept: SemVer, of the dialect's major,
// at least the minimum chart-testing and helmfile require.
func TestVersionAcceptedByTools(t *testing.T) {
	for _, build := range []string{"v9.9.9", "dev", "f72b88b-dirty", "v0.2.0-3-gf72b88b", "1.2/3_4", ""} {
		for compat, major := range map[string]uint64{"helm4": 4, "helm3": 3} {
			o := &VersionOptions{Build: BuildInfo{Version: build}}
			o.compat.value = compat
			d, _ := o.compat.Dialect()
			v, err := semver.StrictNewVersion(strings.TrimPrefix(o.helmBuild(d).Version, "v"))
			if err != nil {
				t.Errorf("build %q, %s: %v", build, compat, err)
				continue
			}
			if v.Major() != major || v.LessThan(semver.MustParse("3.0.0")) || !strings.HasPrefix(v.Metadata(), "kubectl-chart.") {
				t.Errorf("build %q, %s: version %s", build, compat, v)
			}
		}
	}
}

// Installed as helm, version prints what the Helm peer prints, but for the
// build metadata and commit that name us.
func TestVersionLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	ours := regexp.MustCompile(`\+kubectl-chart\.v9\.9\.9|abc`)
	for _, args := range [][]string{{}, {"--short"}, {"--template", "{{ .Version }}|{{ .GitTreeState }}|{{ .GoVersion }}"}, {"--template", "{{ .Nope }}"}, {"--template", "{{"}, {"-o", "json"}, {"--client"}} {
		for compat, helm := range peers {
			t.Run(compat+" "+strings.Join(args, " "), func(t *testing.T) {
				isolatePlugins(t)
				cmd := exec.Command(helm, append([]string{"version"}, args...)...)
				var hOut, hErr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &hOut, &hErr
				herr := cmd.Run()
				out, _, err := runVersion(t, true, compat, args...)
				out = ours.ReplaceAllString(out, "")
				if herr != nil {
					if err == nil || "Error: "+err.Error()+"\n" != strings.SplitAfter(hErr.String(), "\n\n")[0] && "Error: "+err.Error()+"\n" != hErr.String() {
						t.Errorf("error = %v, Helm's:\n%s", err, hErr.String())
					}
					return
				}
				if err != nil || out != hOut.String() {
					t.Errorf("output = %q, %v; Helm's %q", out, err, hOut.String())
				}
			})
		}
	}
}
