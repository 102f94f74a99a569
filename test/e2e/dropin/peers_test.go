//go:build e2e

package dropin

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// dialect is one Helm major: kubectl-chart's dialect and the Helm it is held to.
type dialect struct {
	name    string // KUBECTL_CHART_COMPAT
	version string // the Helm release compared against
}

func dialects() []dialect {
	return []dialect{{"helm4", "v4.3.1"}, {"helm3", "v3.22.0"}}
}

func helmPeer(t *testing.T, version string) string { return prereq.BuildHelmPeer(t, version) }

// toolPeer is helmfile, ct or kubectl, built by hack/tool-peer.sh.
func toolPeer(t *testing.T, tool string) string { return prereq.BuildTool(t, tool) }
