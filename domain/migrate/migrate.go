// Package migrate copies release histories from one release store to
// another (kubectl chart storage migrate): every revision of a namespace's
// releases, or of every namespace's, idempotently, each read back from the
// destination and compared with the source, which is only read.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ErrDiffers means the destination already holds a revision that is not the
// source's: migrate never overwrites.
var ErrDiffers = errors.New("the destination holds a different revision")

// ErrUnreadable means the source holds records that cannot be read; nothing
// is copied, so that no history is copied with a hole in it.
var ErrUnreadable = errors.New("the source holds records that cannot be read")

// Report is what a migration did.
type Report struct {
	Releases int
	// Copied revisions were created in the destination; Present ones were
	// there already, the same. All were read back and verified.
	Copied, Present int
}

// Copy copies every revision in namespace ("" for all) from one store to the
// other.
func Copy(ctx context.Context, from, to ports.ReleaseStore, namespace string) (Report, error) {
	refs, err := revisions(ctx, from, namespace)
	if err != nil {
		return Report{}, err
	}
	var rep Report
	releases := map[[2]string]bool{}
	for _, ref := range refs {
		releases[[2]string{ref.Namespace, ref.Name}] = true
		src, err := from.Get(ctx, ref.Namespace, ref.Name, ref.Revision)
		if err != nil {
			return rep, fmt.Errorf("read %s: %w", name(ref), err)
		}
		copied, err := put(ctx, to, src)
		if err != nil {
			return rep, err
		}
		if copied {
			rep.Copied++
		} else {
			rep.Present++
		}
		// Read back what is now there, as every later reader will.
		got, err := to.Get(ctx, ref.Namespace, ref.Name, ref.Revision)
		if err != nil {
			return rep, fmt.Errorf("verify %s: %w", name(ref), err)
		}
		if !same(got, src) {
			return rep, fmt.Errorf("verify %s: it reads back different from the source", name(ref))
		}
	}
	rep.Releases = len(releases)
	return rep, nil
}

// revisions lists the source's revisions in order, refusing a source with
// unreadable records.
func revisions(ctx context.Context, from ports.ReleaseStore, namespace string) ([]ports.RevisionRef, error) {
	res, err := from.List(ctx, ports.ListQuery{Namespace: namespace, LabelsOnly: true})
	if err != nil {
		return nil, fmt.Errorf("list the source's releases: %w", err)
	}
	if len(res.Problems) > 0 {
		errs := make([]error, 0, len(res.Problems)+1)
		errs = append(errs, ErrUnreadable)
		for _, p := range res.Problems {
			errs = append(errs, p)
		}
		return nil, errors.Join(errs...)
	}
	release.SortSummaries(res.Releases)
	refs := make([]ports.RevisionRef, len(res.Releases))
	for i, s := range res.Releases {
		refs[i] = ports.RevisionRef{Namespace: s.Namespace, Name: s.Name, Revision: s.Revision}
	}
	return refs, nil
}

// put creates src in the destination unless it is there; copied says
// whether it created it.
func put(ctx context.Context, to ports.ReleaseStore, src *release.Release) (copied bool, err error) {
	ref := ports.RevisionRef{Namespace: src.Namespace, Name: src.Name, Revision: src.Version}
	err = to.Create(ctx, src)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, ports.ErrReleaseExists) {
		return false, fmt.Errorf("copy %s: %w", name(ref), err)
	}
	have, err := to.Get(ctx, src.Namespace, src.Name, src.Version)
	if err != nil {
		return false, fmt.Errorf("copy %s: %w", name(ref), err)
	}
	if !same(have, src) {
		return false, fmt.Errorf("copy %s: %w", name(ref), ErrDiffers)
	}
	return false, nil
}

// same reports whether two revisions have the same record and user labels.
func same(a, b *release.Release) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb) && maps.Equal(a.Labels, b.Labels)
}

func name(r ports.RevisionRef) string {
	return fmt.Sprintf("release %s/%s revision %d", r.Namespace, r.Name, r.Revision)
}
