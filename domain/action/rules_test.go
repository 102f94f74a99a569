package action

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
)

// The rules of installing hold for every caller of the use cases, not only
// for the commands: a library chart or one missing a dependency is refused,
// --hide-secret needs a dry run and hides the dry run's Secrets.
func TestUseCaseRules(t *testing.T) {
	ctx := context.Background()
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: hunter2\n"
	library := demoChart(map[string]string{"a.yaml": cm("a")})
	library.Metadata.Type = "library"
	missing := demoChart(map[string]string{"a.yaml": cm("a")})
	missing.Metadata.Dependencies = []*chart.Dependency{{Name: "db", Version: "1.0.0"}}
	withSecret := demoChart(map[string]string{"a.yaml": cm("a"), "s.yaml": secret})
	tests := map[string]struct {
		spec    func() ReleaseSpec
		wantErr string
		// manifest is what the dry run's release must (not) hold.
		has, lacks string
	}{
		"library chart": {
			spec:    func() ReleaseSpec { return spec(library, nil) },
			wantErr: "library charts are not installable",
		},
		"missing dependency": {
			spec:    func() ReleaseSpec { s := spec(missing, nil); s.Dialect = dialect.Helm4; return s },
			wantErr: "an error occurred while checking for chart dependencies. You may need to run 'kubectl chart dependency build' to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: db",
		},
		"hide secrets without a dry run": {
			spec: func() ReleaseSpec {
				s := spec(withSecret, nil)
				s.HideSecrets, s.Dialect = true, dialect.Helm3
				return s
			},
			wantErr: "Hiding Kubernetes secrets requires a dry-run mode",
		},
		"hide secrets of a dry run": {
			spec: func() ReleaseSpec {
				s := spec(withSecret, nil)
				s.HideSecrets, s.DryRun = true, DryRunClient
				return s
			},
			has: "# HIDDEN: The Secret output has been suppressed\n", lacks: "hunter2",
		},
		"secrets of a dry run shown": {
			spec: func() ReleaseSpec { s := spec(withSecret, nil); s.DryRun = DryRunClient; return s },
			has:  "hunter2",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, op := range []string{"install", "upgrade --install"} {
				h := newHarness()
				var err error
				var manifest string
				if op == "install" {
					rel, ierr := h.l.Install(ctx, InstallRequest{ReleaseSpec: tc.spec()})
					err = ierr
					if rel != nil {
						manifest = rel.Manifest
					}
				} else {
					rel, uerr := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: tc.spec(), Install: true})
					err = uerr
					if rel != nil {
						manifest = rel.Manifest
					}
				}
				if tc.wantErr != "" {
					if err == nil || err.Error() != tc.wantErr {
						t.Errorf("%s: err = %v, want %q", op, err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if !strings.Contains(manifest, tc.has) || (tc.lacks != "" && strings.Contains(manifest, tc.lacks)) {
					t.Errorf("%s: manifest lacks %q or has %q:\n%s", op, tc.has, tc.lacks, manifest)
				}
			}
		})
	}
	var hs *render.HideSecretError
	h := newHarness()
	s := spec(withSecret, nil)
	s.HideSecrets = true
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: s}); !errors.As(err, &hs) {
		t.Errorf("err = %v, want a render.HideSecretError", err)
	}
}
