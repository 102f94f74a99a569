package action

import (
	"context"
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// A release operation reached with no dialect chosen is refused before
// anything is written, never carried out as Helm 3's.
func TestUnsetDialectIsRefused(t *testing.T) {
	h := newHarness()
	s := spec(demoChart(map[string]string{"cm.yaml": groupedCM("a", "")}), nil)
	s.Dialect = dialect.Unset
	if _, err := h.l.Install(context.Background(), InstallRequest{ReleaseSpec: s}); !errors.Is(err, dialect.ErrUnset) {
		t.Fatalf("install error = %v, want dialect.ErrUnset", err)
	}
	if w := h.writes(); len(w) != 0 {
		t.Errorf("writes %v, want none", w)
	}
}
