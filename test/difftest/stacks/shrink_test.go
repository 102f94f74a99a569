package stacks

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/shrinker"
)

// A stack of seed 20261210 shaped like the difference the differential run
// found: helmfile repeats r4's needs warning for r0 under -l.
func stackCase() Case {
	c := Case{Files: map[string]string{}, Args: []string{"-e", "prod", "-l", "tier=front", "--include-needs"}}
	for k, v := range charts {
		c.Files[k] = v
	}
	c.Files["bases/envs.yaml"] = "environments:\n  default:\n    values:\n    - color: red\n      replicas: 1\n  prod:\n    values:\n    - color: blue\n      replicas: 2\n    - env/prod.yaml.gotmpl\n"
	c.Files["env/prod.yaml.gotmpl"] = "region: {{ .Environment.Name }}-eu\nnested:\n  list: [1, 2]\n"
	c.Files["values/r4.yaml.gotmpl"] = "color: {{ .Values.color | quote }}\n"
	c.Files["values/r1.yaml.gotmpl"] = "owner: {{ .Release.Name }}\n"
	c.Files[stateFile] = `bases:
- bases/envs.yaml
---
releases:
- name: r0
  namespace: ns-a
  chart: ./charts/app
  labels:
    tier: back
  installed: {{ ne .Environment.Name "prod" }}
  values:
  - replicas: {{ .Values.replicas }}
- name: r1
  namespace: ns-a
  chart: ./charts/job
  needs:
  - ns-a/r0
  values:
  - values/r1.yaml.gotmpl
- name: r2
  namespace: ns-a
  chart: ./charts/job
  needs:
  - ns-a/r1
  set:
  - name: extra.a
    value: "x,y"
- name: r4
  namespace: ns-b
  chart: ./charts/app
  labels:
    tier: front
  needs:
  - ns-a/r0
  values:
  - values/r4.yaml.gotmpl
  - replicas: {{ .Values.replicas }}
    list: ["blue", "front"]
  setString:
  - name: str
    value: "59"
`
	return c
}

// stillDiffers is a fake oracle: the difference shows while -e prod and -l
// tier=front are given, r0 is not installed in prod and r4, labelled
// tier=front, needs it. A case helmfile would refuse is another outcome: a
// release without a chart that exists, a file named that does not, a need
// naming no release.
func stillDiffers(_ context.Context, c Case) bool {
	state := c.Files[stateFile]
	parts := strings.Split(state, "\n- name: ")
	releases := map[string]string{}
	for _, p := range parts[1:] {
		name, body, _ := strings.Cut(p, "\n")
		releases[name] = body
		chart, ok := strings.CutPrefix(body, "  namespace: ")
		if !ok {
			return false
		}
		if _, chart, ok = strings.Cut(chart, "\n  chart: ./"); !ok {
			return false
		}
		chart, _, _ = strings.Cut(chart, "\n")
		if _, ok := c.Files[chart+"/Chart.yaml"]; !ok {
			return false
		}
	}
	for _, l := range strings.Split(state, "\n") {
		f := strings.TrimPrefix(strings.TrimSpace(l), "- ")
		if _, ok := c.Files[f]; !ok && (strings.HasSuffix(f, ".gotmpl") || strings.HasPrefix(f, "bases/")) {
			return false
		}
		if need, ok := strings.CutPrefix(f, "ns-a/"); ok && releases[need] == "" {
			return false
		}
	}
	args := strings.Join(c.Args, " ")
	return strings.Contains(args, "-e prod") && strings.Contains(args, "-l tier=front") &&
		strings.Contains(releases["r0"], `installed: {{ ne .Environment.Name "prod" }}`) &&
		strings.Contains(releases["r4"], "  labels:\n    tier: front\n  needs:\n  - ns-a/r0\n")
}

func TestShrinkKeepsOnlyWhatTheStackDifferenceNeeds(t *testing.T) {
	runs := 0
	keeps := func(ctx context.Context, c Case) bool { runs++; return stillDiffers(ctx, c) }
	c := stackCase()
	got := Shrink(context.Background(), c, keeps, 1000)
	if !stillDiffers(context.Background(), got) {
		t.Fatalf("the shrunk case lost the difference:\n%s", got)
	}
	if want := []string{"-e", "prod", "-l", "tier=front"}; !slices.Equal(got.Args, want) {
		t.Errorf("args %q, want %q", got.Args, want)
	}
	if want := []string{stateFile, "charts/app/Chart.yaml"}; !slices.Equal(fileNames(got), want) {
		t.Errorf("files %q, want %q", fileNames(got), want)
	}
	want := "releases:\n- name: r0\n  namespace: ns-a\n  chart: ./charts/app\n" + `  installed: {{ ne .Environment.Name "prod" }}` +
		"\n- name: r4\n  namespace: ns-b\n  chart: ./charts/app\n  labels:\n    tier: front\n  needs:\n  - ns-a/r0\n"
	if got.Files[stateFile] != want {
		t.Errorf("state file:\n%s\nwant:\n%s", got.Files[stateFile], want)
	}
	if !strings.Contains(c.Files[stateFile], "- name: r2") || len(c.Args) != 5 {
		t.Error("shrinking changed the case it was given")
	}
	t.Logf("%d candidates", runs)
	if runs > 400 {
		t.Errorf("%d candidates tried for a stack of four releases", runs)
	}
}

func TestShrinkStackStopsAtItsBudget(t *testing.T) {
	tries := 0
	keeps := func(_ context.Context, c Case) bool { tries++; return strings.Contains(c.Files[stateFile], "r4") }
	Shrink(context.Background(), stackCase(), keeps, 7)
	if tries != 7 {
		t.Errorf("tried %d candidates, want 7", tries)
	}
}

func TestDropRelease(t *testing.T) {
	tests := map[string]struct {
		release int
		gone    []string
		kept    []string
	}{
		"a release others need takes their needs along": {release: 0,
			gone: []string{"- name: r0", "ns-a/r0"}, kept: []string{"- name: r1", "  needs:\n  - ns-a/r1", "- name: r4\n"}},
		"a needs list left empty goes": {release: 1,
			gone: []string{"- name: r1", "ns-a/r1", "- name: r2\n  namespace: ns-a\n  chart: ./charts/job\n  needs:"}, kept: []string{"- name: r0", "  needs:\n  - ns-a/r0"}},
		"the last release goes with all its sections": {release: 3,
			gone: []string{"- name: r4", "setString", "values/r4.yaml.gotmpl"}, kept: []string{"    value: \"x,y\"\n"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			c := stackCase()
			dropRelease(&c, tt.release)
			for _, s := range tt.gone {
				if strings.Contains(c.Files[stateFile], s) {
					t.Errorf("%q left in:\n%s", s, c.Files[stateFile])
				}
			}
			for _, s := range tt.kept {
				if !strings.Contains(c.Files[stateFile], s) {
					t.Errorf("%q gone from:\n%s", s, c.Files[stateFile])
				}
			}
		})
	}
}

func TestSectionEnd(t *testing.T) {
	lines := strings.SplitAfter("releases:\n- name: r0\n  values:\n  - a.yaml\n  - x: 1\n    y: 2\n\n  labels:\n    tier: a\n- name: r1\n---\nbases:\n- b.yaml\n", "\n")
	tests := map[string]struct{ start, end int }{
		"a key takes its list at its own indentation": {0, 10},
		"a list item its more indented lines":         {1, 9},
		"a release's values key its items":            {2, 7},
		"a list item of a mapping its other keys":     {4, 7},
		"a key with a mapping":                        {7, 9},
		"a document separator itself":                 {10, 11},
		"bases":                                       {11, 14},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := sectionEnd(lines, tt.start); got != tt.end {
				t.Errorf("section at line %d ends at %d, want %d", tt.start, got, tt.end)
			}
		})
	}
}

func TestFlagGroups(t *testing.T) {
	args := []string{"-e", "prod", "-l", "name=r1", "-l", "tier!=back,namespace=ns-a", "--include-needs", "--environment=staging"}
	want := [][2]int{{0, 2}, {2, 4}, {4, 6}, {6, 7}, {7, 8}}
	if got := flagGroups(args); !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

func TestDroppable(t *testing.T) {
	c := stackCase()
	// r1 and r2 go: r1's values file and the job chart are named nowhere
	// else; the app chart's files but its Chart.yaml may go one by one.
	dropRelease(&c, 2)
	dropRelease(&c, 1)
	want := []string{"charts/app/templates/cm.yaml", "charts/app/values.yaml", "charts/job", "values/r1.yaml.gotmpl"}
	if got := droppable(c); !slices.Equal(got, want) {
		t.Errorf("droppable %q, want %q", got, want)
	}
}

// The shrinker keeps the difference it was given: a candidate whose stderr
// parts from helmfile's at another line is another difference.
func TestShrinkStackDoesNotDriftToAnotherDifference(t *testing.T) {
	run := func(_ context.Context, c Case) (Result, error) {
		var res Result
		for _, r := range []string{"r4", "r1"} {
			if strings.Contains(c.Files[stateFile], "- name: "+r+"\n") {
				res.Helmfile.Stderr += "WARNING: " + r + " repeated\n"
				break
			}
		}
		return res, nil
	}
	c := stackCase()
	want, _ := run(context.Background(), c)
	got := Shrink(context.Background(), c, shrinker.SameDifference(run, want), 1000)
	if !strings.Contains(got.Files[stateFile], "- name: r4\n") {
		t.Errorf("shrunk to another difference:\n%s", got.Files[stateFile])
	}
}
