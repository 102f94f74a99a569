package render_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/yamlcodec"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
)

// fakePostRenderer records the stream it is handed and returns what its
// rewrite makes of it.
type fakePostRenderer struct {
	got     string
	rewrite func(string) (string, error)
}

func (f *fakePostRenderer) PostRender(_ context.Context, stream string) (string, error) {
	f.got = stream
	return f.rewrite(stream)
}

const addedHook = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n  annotations:\n    helm.sh/hook: post-install\n"

// Each dialect hands the post-renderer what its Helm hands it and makes of
// the output what its Helm makes of it (the bytes are pinned by
// cmd/kubectl-chart's goldens from the real Helms).
func TestRenderPostRenderStrategy(t *testing.T) {
	identity := func(s string) (string, error) { return s, nil }
	tests := map[string]struct {
		dialect dialect.Dialect
		hide    bool
		rewrite func(string) (string, error)
		// handed says what the stream holds; check what the render became.
		handed  func(t *testing.T, stream string)
		check   func(t *testing.T, r *render.Rendered)
		wantErr string
	}{
		"helm4 hands hooks, each document annotated with its file": {
			dialect: dialect.Helm4, rewrite: identity,
			handed: func(t *testing.T, s string) {
				for _, want := range []string{"helm.sh/hook", "postrenderer.helm.sh/postrender-filename: 'shop/templates/hooks.yaml'"} {
					if !strings.Contains(s, want) {
						t.Errorf("stream lacks %q:\n%s", want, s)
					}
				}
			},
			check: func(t *testing.T, r *render.Rendered) {
				if len(r.Hooks) == 0 || strings.Contains(r.Manifest, "postrender-filename") {
					t.Errorf("hooks %d, manifest:\n%s", len(r.Hooks), r.Manifest)
				}
			},
		},
		"helm4 takes a hook the post-renderer adds": {
			dialect: dialect.Helm4, rewrite: func(s string) (string, error) { return s + addedHook, nil },
			check: func(t *testing.T, r *render.Rendered) {
				var found bool
				for _, h := range r.Hooks {
					found = found || (h.Name == "added" && strings.HasPrefix(h.Path, "generated-by-postrender-"))
				}
				if !found {
					t.Errorf("no hook added; hooks: %v", r.Hooks)
				}
			},
		},
		"helm4 drops hooks the post-renderer drops": {
			dialect: dialect.Helm4,
			rewrite: func(string) (string, error) {
				return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: only\n", nil
			},
			check: func(t *testing.T, r *render.Rendered) {
				if len(r.Hooks) != 0 || !strings.Contains(r.Manifest, "# Source: generated-by-postrender-0.yaml\n") {
					t.Errorf("hooks %d, manifest:\n%s", len(r.Hooks), r.Manifest)
				}
			},
		},
		"helm4 refuses malformed output": {
			dialect: dialect.Helm4, rewrite: func(string) (string, error) { return "a: [\n", nil },
			wantErr: "error while parsing post rendered output: error parsing YAML: ",
		},
		"helm4 refuses a document that is not a mapping": {
			dialect: dialect.Helm4, rewrite: func(string) (string, error) { return "- a\n", nil },
			wantErr: "error while parsing post rendered output: error parsing YAML: wrong node kind: expected MappingNode but got SequenceNode",
		},
		"helm4 failing post-renderer": {
			dialect: dialect.Helm4, rewrite: func(string) (string, error) { return "", errors.New("boom") },
			wantErr: "error while running post render on files: boom",
		},
		"helm3 hands the manifest text alone and takes the output as it is": {
			dialect: dialect.Helm3, rewrite: func(string) (string, error) { return "not: [yaml", nil },
			handed: func(t *testing.T, s string) {
				if strings.Contains(s, "helm.sh/hook") || strings.Contains(s, "postrender-filename") || !strings.HasPrefix(s, "---\n# Source: shop/") {
					t.Errorf("stream:\n%s", s)
				}
			},
			check: func(t *testing.T, r *render.Rendered) {
				if r.Manifest != "not: [yaml" || len(r.Hooks) == 0 {
					t.Errorf("hooks %d, manifest %q", len(r.Hooks), r.Manifest)
				}
			},
		},
		"helm3 hides Secrets from the post-renderer with --hide-secret": {
			dialect: dialect.Helm3, hide: true, rewrite: identity,
			handed: func(t *testing.T, s string) {
				if strings.Contains(s, "kind: Secret") || !strings.Contains(s, "\n# HIDDEN: The Secret output has been suppressed\n") {
					t.Errorf("stream:\n%s", s)
				}
			},
			check: func(*testing.T, *render.Rendered) {},
		},
		"helm3 failing post-renderer": {
			dialect: dialect.Helm3, rewrite: func(string) (string, error) { return "", errors.New("boom") },
			wantErr: "error while running post render on files: boom",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := shopRequest(t)
			req.Dialect = tc.dialect
			pr := &fakePostRenderer{rewrite: tc.rewrite}
			req.PostRender = &render.PostRender{Renderer: pr, Codec: yamlcodec.KYAML{}, HideSecrets: tc.hide}
			r, err := render.Chart(context.Background(), req)
			if tc.wantErr != "" {
				var re *render.Error
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || !errors.As(err, &re) || !re.PostRenderFailed {
					t.Fatalf("error = %v, want a post-render failure starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.handed != nil {
				tc.handed(t, pr.got)
			}
			tc.check(t, r)
		})
	}
}
