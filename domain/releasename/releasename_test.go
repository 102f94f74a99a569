package releasename_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
)

func TestReleaseNameArgs(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tests := map[string]struct {
		args      releasename.Args
		wantName  string
		wantChart string
		wantErr   string
	}{
		"name and chart": {
			args:     releasename.Args{Args: []string{"rel", "./chart"}},
			wantName: "rel", wantChart: "./chart",
		},
		"name and chart win over the default name": {
			args:     releasename.Args{Args: []string{"rel", "./chart"}, ReleaseName: "release-name"},
			wantName: "rel", wantChart: "./chart",
		},
		"chart only, default name (helm template)": {
			args:     releasename.Args{Args: []string{"./chart"}, ReleaseName: "release-name"},
			wantName: "release-name", wantChart: "./chart",
		},
		"default name wins over --generate-name (as in helm template)": {
			args:     releasename.Args{Args: []string{"./chart"}, ReleaseName: "release-name", GenerateName: true, Now: now},
			wantName: "release-name", wantChart: "./chart",
		},
		"--generate-name from a directory": {
			args:     releasename.Args{Args: []string{"./charts/nginx/"}, GenerateName: true, Now: now},
			wantName: "nginx-1700000000", wantChart: "./charts/nginx/",
		},
		"--generate-name strips everything after the first dot": {
			args:     releasename.Args{Args: []string{"repo/mychart-1.2.3.tgz"}, GenerateName: true, Now: now},
			wantName: "mychart-1-1700000000", wantChart: "repo/mychart-1.2.3.tgz",
		},
		"--generate-name from the current directory": {
			args:     releasename.Args{Args: []string{"."}, GenerateName: true, Now: now},
			wantName: "chart-1700000000", wantChart: ".",
		},
		"--generate-name from an OCI reference": {
			args:     releasename.Args{Args: []string{"oci://example.com/charts/app"}, GenerateName: true, Now: now},
			wantName: "app-1700000000", wantChart: "oci://example.com/charts/app",
		},
		"--name-template": {
			args:     releasename.Args{Args: []string{"./chart"}, NameTemplate: `{{ "web" }}-{{ add 1 2 }}`, ReleaseName: "release-name"},
			wantName: "web-3", wantChart: "./chart",
		},
		"--name-template wins over --generate-name": {
			args:     releasename.Args{Args: []string{"./chart"}, NameTemplate: "fixed", GenerateName: true, Now: now},
			wantName: "fixed", wantChart: "./chart",
		},
		"no name": {
			args:      releasename.Args{Args: []string{"./chart"}},
			wantChart: "./chart",
			wantErr:   "must either provide a name or specify --generate-name",
		},
		"name and --generate-name": {
			args:     releasename.Args{Args: []string{"rel", "./chart"}, GenerateName: true},
			wantName: "rel", wantChart: "./chart",
			wantErr: "cannot set --generate-name and also specify a name",
		},
		"name and --name-template": {
			args:     releasename.Args{Args: []string{"rel", "./chart"}, NameTemplate: "x"},
			wantName: "rel", wantChart: "./chart",
			wantErr: "cannot set --name-template and also specify a name",
		},
		"too many arguments": {
			args:     releasename.Args{Args: []string{"rel", "./chart", "extra", "more"}},
			wantName: "rel", wantChart: "./chart",
			wantErr: "expected at most two arguments, unexpected arguments: extra, more",
		},
		"no arguments": {
			args:    releasename.Args{},
			wantErr: "requires at least 1 argument: the chart",
		},
		"--name-template that does not parse": {
			args:      releasename.Args{Args: []string{"./chart"}, NameTemplate: "{{"},
			wantChart: "./chart",
			wantErr:   "template: name-template:1: unclosed action",
		},
		"--name-template that fails": {
			args:      releasename.Args{Args: []string{"./chart"}, NameTemplate: `{{ fail "no" }}`},
			wantChart: "./chart",
			wantErr:   `template: name-template:1:3: executing "name-template" at <fail "no">: error calling fail: no`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			gotName, gotChart, err := tc.args.Resolve()
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tc.wantErr {
				t.Errorf("error = %q, want %q", gotErr, tc.wantErr)
			}
			if gotName != tc.wantName || gotChart != tc.wantChart {
				t.Errorf("Resolve() = (%q, %q), want (%q, %q)", gotName, gotChart, tc.wantName, tc.wantChart)
			}
		})
	}
}

func TestNameFromTemplate(t *testing.T) {
	t.Setenv("KC_TEST_RELEASE", "fromenv")
	tests := map[string]struct {
		text    string
		want    string
		pattern string
	}{
		"empty":                     {text: "", want: ""},
		"plain text":                {text: "rel", want: "rel"},
		"sprig functions":           {text: `{{ "MyApp" | lower }}-{{ "x" | repeat 3 }}`, want: "myapp-xxx"},
		"environment, as in Helm":   {text: `{{ env "KC_TEST_RELEASE" }}`, want: "fromenv"},
		"expandenv, as in Helm":     {text: `{{ expandenv "${KC_TEST_RELEASE}-x" }}`, want: "fromenv-x"},
		"random suffix":             {text: `app-{{ randAlphaNum 5 | lower }}`, pattern: `^app-[a-z0-9]{5}$`},
		"no data: fields are empty": {text: `a{{ . }}b`, want: "a<no value>b"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := releasename.FromTemplate(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if tc.pattern != "" {
				if !regexp.MustCompile(tc.pattern).MatchString(got) {
					t.Errorf("NameFromTemplate(%q) = %q, want a match for %s", tc.text, got, tc.pattern)
				}
				return
			}
			if got != tc.want {
				t.Errorf("NameFromTemplate(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestValidateReleaseName(t *testing.T) {
	invalid := "invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"
	tests := map[string]struct {
		name    string
		wantErr string
	}{
		"simple":            {name: "rel"},
		"digits and dashes": {name: "1-release-2"},
		"dotted":            {name: "a.b-c.d"},
		"53 characters":     {name: strings.Repeat("a", 53)},
		"54 characters":     {name: strings.Repeat("a", 54), wantErr: invalid},
		"empty":             {name: "", wantErr: "no name provided"},
		"upper case":        {name: "Bad_Name", wantErr: invalid},
		"leading dash":      {name: "-rel", wantErr: invalid},
		"trailing dash":     {name: "rel-", wantErr: invalid},
		"empty dotted part": {name: "a..b", wantErr: invalid},
		"slash":             {name: "a/b", wantErr: invalid},
		"space":             {name: "a b", wantErr: invalid},
		"trailing newline":  {name: "rel\n", wantErr: invalid},
		"unicode":           {name: "réléase", wantErr: invalid},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := releasename.Validate(tc.name)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("ValidateReleaseName(%q) = %q, want %q", tc.name, got, tc.wantErr)
			}
		})
	}
}
