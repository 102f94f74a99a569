package porttest

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ContentCache checks a ports.ContentCache that starts empty: absent content
// is ErrNotCached, stored content comes back, a second Put replaces it, and
// the kinds under one digest are apart.
func ContentCache(t *testing.T, c ports.ContentCache) {
	t.Helper()
	ctx := context.Background()
	key := sha256.Sum256([]byte("archive"))
	if _, err := c.Get(ctx, key, ports.ContentChart); !errors.Is(err, ports.ErrNotCached) {
		t.Fatalf("Get of absent content: %v, want ErrNotCached", err)
	}
	for _, step := range []struct {
		kind ports.ContentKind
		data string
	}{
		{ports.ContentChart, "archive"},
		{ports.ContentProv, "signature"},
		{ports.ContentChart, "replaced"},
	} {
		if err := c.Put(ctx, key, step.kind, []byte(step.data)); err != nil {
			t.Fatalf("Put %s: %v", step.kind, err)
		}
		got, err := c.Get(ctx, key, step.kind)
		if err != nil || string(got) != step.data {
			t.Fatalf("Get %s = %q, %v; want %q", step.kind, got, err, step.data)
		}
	}
	if got, err := c.Get(ctx, key, ports.ContentProv); err != nil || string(got) != "signature" {
		t.Errorf("the chart's Put changed the provenance: %q, %v", got, err)
	}
	other := sha256.Sum256([]byte("other"))
	if _, err := c.Get(ctx, other, ports.ContentChart); !errors.Is(err, ports.ErrNotCached) {
		t.Errorf("Get of another digest: %v, want ErrNotCached", err)
	}
}
