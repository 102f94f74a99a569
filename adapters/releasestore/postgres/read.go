package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"runtime"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// row is a revision's row: its columns and user labels, its body when read.
type row struct {
	namespace, key, name string
	version              int
	status               string
	body                 string
	labels               map[string]string
}

// labelsColumn is a row's labels as one JSON object (NULL for none).
const labelsColumn = `(SELECT jsonb_object_agg(l.key, l.value) FROM custom_labels_v1 l WHERE l.releaseKey = r.key AND l.releaseNamespace = r.namespace)`

func parseLabels(js []byte) (map[string]string, error) {
	if js == nil {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, err
	}
	return helmrecord.UserLabels(m), nil
}

// storageLabels are the labels a selector sees: Helm's, from the columns,
// and the user's.
func (r row) storageLabels() map[string]string {
	m := make(map[string]string, len(r.labels)+4)
	maps.Copy(m, r.labels)
	m[helmrecord.LabelName], m[helmrecord.LabelOwner] = r.name, owner
	m[helmrecord.LabelStatus], m[helmrecord.LabelVersion] = r.status, strconv.Itoa(r.version)
	return m
}

func (r row) ref() string { return "release database row " + r.namespace + "/" + r.key }

func (r row) recordError(err error) ports.RecordError {
	return ports.RecordError{Object: r.ref(), Namespace: r.namespace, Release: r.name, Err: err}
}

// decode reads a row's release as Get returns it.
func (s *Store) decode(r row) (*release.Release, error) {
	rel, err := helmrecord.Decode(r.body)
	if err != nil {
		return nil, r.recordError(err)
	}
	// The row, not the payload, says where the revision lives.
	rel.Namespace = r.namespace
	rel.Labels = helmrecord.UserLabels(r.labels)
	// As Helm's SQL driver, a revision carries its user's labels only.
	rel.StorageLabels = maps.Clone(rel.Labels)
	return rel, nil
}

// Get returns one revision.
func (s *Store) Get(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	key := helmrecord.ObjectName(name, revision)
	r := row{namespace: namespace, key: key, name: name}
	var lbls []byte
	err := s.pool.QueryRow(ctx, `SELECT r.body, `+labelsColumn+` FROM releases_v1 r WHERE r.key = $1 AND r.namespace = $2 LIMIT 1`, key, namespace).Scan(&r.body, &lbls)
	if errors.Is(err, pgx.ErrNoRows) {
		err = ports.ErrReleaseNotFound
	}
	if err != nil {
		return nil, s.wrap(err, "get %s/%s", namespace, key)
	}
	if r.labels, err = parseLabels(lbls); err != nil {
		return nil, r.recordError(err)
	}
	return s.decode(r)
}

// History returns the readable revisions of a release, oldest first. Like
// Helm, it skips rows it cannot read; when none is readable it returns the
// first record error.
func (s *Store) History(ctx context.Context, namespace, name string) (release.History, error) {
	rows, err := s.rows(ctx, ports.ListQuery{Namespace: namespace, Name: name}, true)
	if err != nil {
		return nil, s.wrap(err, "history of release %s/%s", namespace, name)
	}
	return helmrecord.ReadableHistory(namespace, name, len(rows), func(i int) (*release.Release, error) { return s.decode(rows[i]) })
}

// rows reads the rows of a query's scope (namespace, name, latest), their
// bodies when asked (never with LatestOnly), without applying statuses or
// selector.
func (s *Store) rows(ctx context.Context, q ports.ListQuery, bodies bool) ([]row, error) {
	where, args := "r.owner = $1", []any{owner}
	if q.Namespace != "" {
		args = append(args, q.Namespace)
		where += " AND r.namespace = $" + strconv.Itoa(len(args))
	}
	if q.Name != "" {
		args = append(args, q.Name)
		where += " AND r.name = $" + strconv.Itoa(len(args))
	}
	body := "''"
	if bodies {
		body = "r.body"
	}
	from := "releases_v1 r"
	if q.LatestOnly {
		// The latest revisions' columns only: bodies stay unread.
		from = "(SELECT DISTINCT ON (r.namespace, r.name) r.namespace, r.key, r.name, r.version, r.status, r.owner FROM releases_v1 r WHERE " + where + " ORDER BY r.namespace, r.name, r.version DESC) r"
		body = "''"
	}
	sql := `SELECT r.namespace, r.key, r.name, r.version, r.status, ` + body + `, ` + labelsColumn + ` FROM ` + from + ` WHERE ` + where + ` ORDER BY r.namespace, r.name, r.version`
	pgRows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var out []row
	var r row
	var lbls []byte
	_, err = pgx.ForEachRow(pgRows, []any{&r.namespace, &r.key, &r.name, &r.version, &r.status, &r.body, &lbls}, func() error {
		l, err := parseLabels(lbls)
		if err != nil {
			return r.recordError(err)
		}
		r.labels = l
		out = append(out, r)
		return nil
	})
	return out, err
}

// List summarises matching revisions: statuses and selector apply to the
// columns and labels; summaries are decoded from the bodies of the matching
// revisions only, and from none when asked for labels only.
func (s *Store) List(ctx context.Context, q ports.ListQuery) (ports.ListResult, error) {
	m, err := helmrecord.NewMatcher(q)
	if err != nil {
		return ports.ListResult{}, err
	}
	rows, err := s.rows(ctx, q, false)
	if err != nil {
		return ports.ListResult{}, s.wrap(err, "list releases")
	}
	var res ports.ListResult
	var refs []ports.RevisionRef
	for _, r := range rows {
		if !m.Match(r.namespace, r.storageLabels()) {
			continue
		}
		if q.LabelsOnly {
			res.Releases = append(res.Releases, release.Summary{
				Name: r.name, Namespace: r.namespace, Revision: r.version, Status: release.Status(r.status),
				Labels: r.labels, Partial: true,
			})
			continue
		}
		refs = append(refs, ports.RevisionRef{Namespace: r.namespace, Name: r.name, Revision: r.version})
	}
	sums, errs := s.Summaries(ctx, refs)
	for i, err := range errs {
		var re ports.RecordError
		switch {
		case err == nil:
			res.Releases = append(res.Releases, sums[i])
		case errors.Is(err, ports.ErrReleaseNotFound):
			// Deleted since the listing.
		case errors.As(err, &re):
			res.Problems = append(res.Problems, re)
		default:
			return ports.ListResult{}, err
		}
	}
	release.SortSummaries(res.Releases)
	return res, nil
}

// Summary returns one revision's summary (ports.ReleaseSummarizer).
func (s *Store) Summary(ctx context.Context, namespace, name string, revision int) (release.Summary, error) {
	sums, errs := s.Summaries(ctx, []ports.RevisionRef{{Namespace: namespace, Name: name, Revision: revision}})
	return sums[0], errs[0]
}

// summariesPerQuery bounds the revisions one query reads.
const summariesPerQuery = 500

// Summaries returns the summaries of revs (ports.ReleaseSummarizer), reading
// their bodies a few hundred per query and decoding them in parallel.
func (s *Store) Summaries(ctx context.Context, revs []ports.RevisionRef) ([]release.Summary, []error) {
	sums, errs := make([]release.Summary, len(revs)), make([]error, len(revs))
	for start := 0; start < len(revs); start += summariesPerQuery {
		end := min(start+summariesPerQuery, len(revs))
		s.summaries(ctx, revs[start:end], sums[start:end], errs[start:end])
	}
	return sums, errs
}

func (s *Store) summaries(ctx context.Context, revs []ports.RevisionRef, sums []release.Summary, errs []error) {
	namespaces, keys := make([]string, len(revs)), make([]string, len(revs))
	for i, r := range revs {
		namespaces[i], keys[i] = r.Namespace, helmrecord.ObjectName(r.Name, r.Revision)
	}
	pgRows, err := s.pool.Query(ctx, `SELECT r.namespace, r.key, r.name, r.version, r.status, r.body, `+labelsColumn+`
		FROM releases_v1 r JOIN unnest($1::text[], $2::text[]) AS want(namespace, key) ON r.namespace = want.namespace AND r.key = want.key`, namespaces, keys)
	found := map[[2]string]row{}
	if err == nil {
		var r row
		var lbls []byte
		_, err = pgx.ForEachRow(pgRows, []any{&r.namespace, &r.key, &r.name, &r.version, &r.status, &r.body, &lbls}, func() error {
			rr := r
			rr.labels, rr.body = nil, r.body
			l, lerr := parseLabels(lbls)
			if lerr != nil {
				rr.body = "" // reported by the decode below
			}
			rr.labels = l
			found[[2]string{r.namespace, r.key}] = rr
			return nil
		})
	}
	if err != nil {
		for i := range revs {
			errs[i] = s.wrap(err, "read %s/%s", namespaces[i], keys[i])
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(revs)) {
		wg.Go(func() {
			for i := range next {
				r, ok := found[[2]string{namespaces[i], keys[i]}]
				if !ok {
					errs[i] = s.wrap(ports.ErrReleaseNotFound, "read %s/%s", namespaces[i], keys[i])
					continue
				}
				sum, err := helmrecord.DecodeSummary(r.body)
				if err != nil {
					errs[i] = r.recordError(err)
					continue
				}
				// The row says where the revision lives and its status, as
				// Helm's listing by status reads the column.
				sum.Namespace, sum.Labels, sum.Status = r.namespace, r.labels, release.Status(r.status)
				sums[i] = sum
			}
		})
	}
	for i := range revs {
		next <- i
	}
	close(next)
	wg.Wait()
}
