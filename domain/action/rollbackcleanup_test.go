package action_test

import (
	"context"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// TestRollbackCleanupOnFail checks --cleanup-on-fail of a rollback that fails
// while updating its objects, as both Helms: what it created is deleted, and
// deleting nothing fails ("no objects visited"), which is then the error —
// Helm 4's without the rollback's own, Helm 3's with it.
func TestRollbackCleanupOnFail(t *testing.T) {
	const noObjects = "unable to cleanup resources: object not found, skipping delete: no objects visited"
	refused := `cannot patch "a" with kind ConfigMap: ConfigMap "a" is invalid: [immutable: Forbidden: field is immutable when ` + "`immutable` is set, data: Forbidden: field is immutable when `immutable` is set]"
	tests := map[string]struct {
		dialect     dialect.Dialect
		first, next []string // the objects of revisions 1 and 2
		force       bool     // Helm 4 --force-replace (refused with server-side apply)
		want        string
		revisions   string // cm:a and cm:nu after the rollback
	}{
		"Helm 4, nothing created": {
			dialect: dialect.Helm4, first: []string{"cm:a"}, next: []string{"cm:a"}, force: true,
			want:      "an error occurred while cleaning up resources. original rollback error: " + noObjects,
			revisions: "cm:a=2 cm:nu=-",
		},
		"Helm 3, nothing created": {
			dialect: dialect.Helm3, first: []string{"cm:a"}, next: []string{"cm:a!"},
			want:      "an error occurred while cleaning up resources. original rollback error: " + refused + ": " + noObjects,
			revisions: "cm:a=2 cm:nu=-",
		},
		"Helm 3, what it created is deleted": {
			dialect: dialect.Helm3, first: []string{"cm:a", "cm:nu"}, next: []string{"cm:a!"},
			want:      refused,
			revisions: "cm:a=2 cm:nu=-",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, l, err := installThenUpgrade(t, tc.dialect, tc.first, tc.next, false)
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.Rollback(context.Background(), action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1, CleanupOnFail: true,
				ForceReplace: tc.force, HelmForceReplace: tc.force})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("rollback: %v\nwant %s", err, tc.want)
			}
			if got := revisions(t, c, "cm:a", "cm:nu"); got != tc.revisions {
				t.Errorf("objects %s, want %s", got, tc.revisions)
			}
		})
	}
}
