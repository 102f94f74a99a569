package shrinker

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// The "difference" shows when a sequence upgrades with --force after an
// install and the chart has a hook: the shrinker keeps those two steps, that
// flag and that file, and drops the rest.
func TestShrinkSequenceKeepsOnlyWhatTheDifferenceNeeds(t *testing.T) {
	s := generator.Sequence{
		Files: []generator.File{
			{Path: "chart/Chart.yaml", Data: "apiVersion: v2\nname: app\nversion: 0.1.0\n"},
			{Path: "chart/templates/hook.yaml", Data: "kind: ConfigMap\nmetadata:\n  annotations:\n    helm.sh/hook: pre-upgrade\n"},
			{Path: "chart/templates/other.yaml", Data: "kind: Secret\n"},
		},
		Steps: []generator.Step{
			{Args: [][]string{{"list"}, {"-a"}}},
			{Args: [][]string{{"install", "r1", "./chart"}, {"--description", "x"}}},
			{Args: [][]string{{"status", "r1"}}},
			{Args: [][]string{{"upgrade", "r1", "./chart"}, {"--set", "a=1"}, {"--force"}}},
			{Args: [][]string{{"uninstall", "r1"}}},
		},
	}
	keeps := func(_ context.Context, s generator.Sequence) bool {
		installed, hook := false, false
		for _, f := range s.Files {
			hook = hook || strings.Contains(f.Data, "helm.sh/hook")
		}
		for _, st := range s.Steps {
			argv := strings.Join(st.Argv(), " ")
			installed = installed || strings.HasPrefix(argv, "install ")
			if installed && hook && strings.HasPrefix(argv, "upgrade ") && strings.Contains(argv, "--force") {
				return true
			}
		}
		return false
	}
	got := ShrinkSequence(context.Background(), s, keeps, 1000)
	var cmds []string
	for _, st := range got.Steps {
		cmds = append(cmds, strings.Join(st.Argv(), " "))
	}
	if strings.Join(cmds, "; ") != "install r1 ./chart; upgrade r1 ./chart --force" {
		t.Errorf("steps left: %q", cmds)
	}
	if len(got.Files) != 1 || !strings.Contains(got.Files[0].Data, "helm.sh/hook") {
		t.Errorf("files left: %+v", got.Files)
	}
	if !strings.HasSuffix(got.String(), "helm install r1 ./chart\nhelm upgrade r1 ./chart --force\n") {
		t.Errorf("reproducer does not end in the command list:\n%s", got.String())
	}
}
