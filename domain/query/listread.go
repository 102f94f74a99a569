package query

import (
	"context"
	"errors"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/parallel"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ReadWorkers bounds the concurrent reads of single revisions.
const ReadWorkers = 8

// readResult is one revision's summary read for a listing.
type readResult struct {
	sum release.Summary
	// gone: deleted since it was listed.
	gone bool
	// problem: the record cannot be read.
	problem *ports.RecordError
	err     error
}

// readSummaries reads the summaries of the revisions sums name, in their
// order: through the store's Summaries where it has one (a few reads for the
// lot), else by Get, concurrently. A revision deleted since it was listed is
// gone, an unreadable one a problem; other errors are the store's.
func readSummaries(ctx context.Context, store ports.ReleaseStore, sums []release.Summary) []readResult {
	out := make([]readResult, len(sums))
	errs := make([]error, len(sums))
	if summarizer, ok := store.(ports.ReleaseSummarizer); ok {
		refs := make([]ports.RevisionRef, len(sums))
		for i, s := range sums {
			refs[i] = ports.RevisionRef{Namespace: s.Namespace, Name: s.Name, Revision: s.Revision}
		}
		var read []release.Summary
		read, errs = summarizer.Summaries(ctx, refs)
		for i := range out {
			out[i].sum = read[i]
		}
	} else {
		parallel.Do(len(sums), ReadWorkers, func(i int) {
			s := sums[i]
			var r *release.Release
			if r, errs[i] = store.Get(ctx, s.Namespace, s.Name, s.Revision); errs[i] == nil {
				out[i].sum = r.Summarize()
			}
		})
	}
	for i, err := range errs {
		var re ports.RecordError
		switch {
		case err == nil:
		case errors.Is(err, ports.ErrReleaseNotFound):
			out[i].gone = true
		case errors.As(err, &re):
			out[i].problem = &re
		default:
			out[i].err = err
		}
	}
	return out
}

// completeSummaries replaces the Partial summaries among the first n of sums
// (all when n <= 0) by those of their decoded records, dropping revisions
// deleted since the listing and reporting unreadable ones as problems, and
// goes on past n until n readable summaries are complete or sums runs out:
// an unreadable revision counts as not listed, as when the store decodes.
// The summaries after those returned are left out.
func completeSummaries(ctx context.Context, store ports.ReleaseStore, sums []release.Summary, n int) ([]release.Summary, []ports.RecordError, error) {
	if n <= 0 || n > len(sums) {
		n = len(sums)
	}
	out := make([]release.Summary, 0, n)
	var problems []ports.RecordError
	for i := 0; len(out) < n && i < len(sums); {
		batch := sums[i:min(i+n-len(out), len(sums))]
		i += len(batch)
		var partial []release.Summary
		for _, s := range batch {
			if s.Partial {
				partial = append(partial, s)
			}
		}
		read := readSummaries(ctx, store, partial)
		k := 0
		for _, s := range batch {
			if !s.Partial {
				out = append(out, s)
				continue
			}
			r := read[k]
			k++
			switch {
			case r.err != nil:
				return nil, nil, r.err
			case r.gone:
			case r.problem != nil:
				problems = append(problems, *r.problem)
			default:
				full := r.sum
				// The storage label wins, as when the store summarises.
				if s.Status != "" {
					full.Status = s.Status
				}
				out = append(out, full)
			}
		}
	}
	return out, problems, nil
}
