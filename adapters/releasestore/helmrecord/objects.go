package helmrecord

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Annotations and labels kubectl-chart adds (see the package documentation).
const (
	AnnotationSummary  = "kubectl-chart.dev/summary"
	AnnotationChunks   = "kubectl-chart.dev/chunks"
	AnnotationChunkSet = "kubectl-chart.dev/chunk-set"
	AnnotationDigest   = "kubectl-chart.dev/digest"
	LabelChunkOf       = "kubectl-chart.dev/chunk-of"
	LabelChunkVersion  = "kubectl-chart.dev/chunk-of-version"

	// DefaultChunkSize keeps each object's data under Kubernetes' 1 MiB limit with
	// room for metadata.
	DefaultChunkSize = 1_000_000
	// maxSummaryBytes keeps the summary annotation small; longer descriptions
	// make listing decode the record instead.
	maxSummaryBytes = 8 << 10
)

// Object is a storage object as the adapters see it: a Secret or a ConfigMap.
type Object struct {
	Namespace, Name string
	Labels          map[string]string
	Annotations     map[string]string
	// Data is the record text (head) or a slice of it (chunk).
	Data string
	// Chunk marks a chunk object.
	Chunk           bool
	ResourceVersion string
}

// Objects is what a Kubernetes adapter provides: typed access to its kind.
// Errors for missing objects satisfy errors.Is(err, ErrObjectNotFound), for
// existing ones ErrObjectExists, for a stale ResourceVersion ErrConflict.
type Objects interface {
	// Kind names the objects in errors, e.g. "secret".
	Kind() string
	Get(ctx context.Context, namespace, name string) (*Object, error)
	// List returns objects in namespace ("" for all) matching a label selector.
	List(ctx context.Context, namespace, selector string) ([]*Object, error)
	// Create and Update set o.ResourceVersion to the written object's.
	Create(ctx context.Context, o *Object) error
	Update(ctx context.Context, o *Object) error
	Delete(ctx context.Context, namespace, name string) error
}

// Errors Objects implementations map the API server's errors to.
var (
	ErrObjectNotFound = errors.New("object not found")
	ErrObjectExists   = errors.New("object already exists")
	ErrConflict       = errors.New("object changed concurrently")
)

// Store is a ports.ReleaseStore over Secrets or ConfigMaps.
type Store struct {
	objs      Objects
	chunkSize int
	now       func() time.Time

	mu sync.Mutex
	// heads are the head objects this store last wrote or read in full, by
	// namespace/name, without their data: what Update needs of the object it
	// replaces (chunks, resourceVersion) without reading it back.
	// A stale one fails the update's resourceVersion check and is read anew.
	heads map[string]*Object
}

var (
	_ ports.ReleaseStore      = (*Store)(nil)
	_ ports.ReleaseSummarizer = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithChunkSize sets the size above which records are split (tests use small ones).
func WithChunkSize(n int) Option { return func(s *Store) { s.chunkSize = n } }

// WithClock sets the clock of createdAt and modifiedAt.
func WithClock(c ports.Clock) Option { return func(s *Store) { s.now = c.Now } }

// NewStore returns a release store over objs.
func NewStore(objs Objects, opts ...Option) *Store {
	s := &Store{objs: objs, chunkSize: DefaultChunkSize, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.chunkSize < 4 {
		s.chunkSize = 4
	}
	s.chunkSize -= s.chunkSize % 4 // chunks stay whole base64 quanta
	return s
}

// remember keeps what Update needs of a head object just written or read.
func (s *Store) remember(o *Object) {
	if o.ResourceVersion == "" {
		return
	}
	meta := &Object{Namespace: o.Namespace, Name: o.Name, Labels: maps.Clone(o.Labels), Annotations: maps.Clone(o.Annotations), ResourceVersion: o.ResourceVersion}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.heads == nil {
		s.heads = map[string]*Object{}
	}
	s.heads[o.Namespace+"/"+o.Name] = meta
}

func (s *Store) remembered(namespace, name string) *Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heads[namespace+"/"+name]
}

func (s *Store) forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.heads, namespace+"/"+name)
}

func (s *Store) ref(namespace, name string) string {
	return fmt.Sprintf("%s %s/%s", s.objs.Kind(), namespace, name)
}

// summary is the annotation that lets listing skip the payload.
type summary struct {
	Chart         string       `json:"chart,omitempty"`
	AppVersion    string       `json:"app_version,omitempty"`
	FirstDeployed release.Time `json:"first_deployed"`
	LastDeployed  release.Time `json:"last_deployed"`
	Description   string       `json:"description,omitempty"`
	// RollbackRevision is absent from annotations written before it was kept:
	// their revisions recorded none.
	RollbackRevision int `json:"rollback_revision,omitempty"`
}

// encoded is a revision ready to write: its head and its chunks.
type encoded struct {
	head   *Object
	chunks []*Object
}

func (s *Store) encode(r *release.Release, lbls map[string]string) (encoded, error) {
	text, err := Encode(r)
	if err != nil {
		return encoded{}, err
	}
	name := ObjectName(r.Name, r.Version)
	head := &Object{Namespace: r.Namespace, Name: name, Labels: lbls, Annotations: map[string]string{}}
	sum := r.Summarize()
	if js, err := json.Marshal(summary{sum.Chart, sum.AppVersion, sum.FirstApplied, sum.Updated, sum.Description, sum.RollbackRevision}); err == nil && len(js) <= maxSummaryBytes {
		head.Annotations[AnnotationSummary] = string(js)
	}
	if len(text) <= s.chunkSize {
		head.Data = text
		return encoded{head: head}, nil
	}
	set, err := randomID()
	if err != nil {
		return encoded{}, err
	}
	digest := sha256.Sum256([]byte(text))
	n := (len(text) + s.chunkSize - 1) / s.chunkSize
	head.Data = text[:s.chunkSize]
	head.Annotations[AnnotationChunks] = strconv.Itoa(n)
	head.Annotations[AnnotationChunkSet] = set
	head.Annotations[AnnotationDigest] = "sha256:" + hex.EncodeToString(digest[:])
	e := encoded{head: head}
	for i := 1; i < n; i++ {
		end := min((i+1)*s.chunkSize, len(text))
		e.chunks = append(e.chunks, &Object{
			Namespace: r.Namespace,
			Name:      chunkName(name, set, i),
			Labels:    map[string]string{LabelChunkOf: r.Name, LabelChunkVersion: strconv.Itoa(r.Version)},
			Data:      text[i*s.chunkSize : end],
			Chunk:     true,
		})
	}
	return e, nil
}

func chunkName(head, set string, i int) string { return head + "." + set + "." + strconv.Itoa(i) }

func randomID() (string, error) {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("chunk set id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func (s *Store) writeChunks(ctx context.Context, chunks []*Object) error {
	for i, c := range chunks {
		if err := s.objs.Create(ctx, c); err != nil {
			s.deleteChunks(ctx, chunks[:i])
			return fmt.Errorf("create %s: %w", s.ref(c.Namespace, c.Name), err)
		}
	}
	return nil
}

// deleteChunks removes chunk objects, best effort: a leftover chunk is garbage
// no head refers to, removed with its revision.
func (s *Store) deleteChunks(ctx context.Context, chunks []*Object) {
	for _, c := range chunks {
		_ = s.objs.Delete(ctx, c.Namespace, c.Name)
	}
}

func unixLabel(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// Create stores a new revision.
func (s *Store) Create(ctx context.Context, r *release.Release) error {
	if err := Validate(r); err != nil {
		return err
	}
	lbls := StorageLabels(r)
	lbls[LabelCreatedAt] = unixLabel(s.now())
	e, err := s.encode(r, lbls)
	if err != nil {
		return err
	}
	if err := s.writeChunks(ctx, e.chunks); err != nil {
		return fmt.Errorf("create release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, err)
	}
	if err := s.objs.Create(ctx, e.head); err != nil {
		s.deleteChunks(ctx, e.chunks)
		if errors.Is(err, ErrObjectExists) {
			return fmt.Errorf("create %s: %w", s.ref(r.Namespace, e.head.Name), ports.ErrReleaseExists)
		}
		return fmt.Errorf("create %s: %w", s.ref(r.Namespace, e.head.Name), err)
	}
	s.remember(e.head)
	return nil
}

// Update replaces a stored revision.
func (s *Store) Update(ctx context.Context, r *release.Release) error {
	if err := Validate(r); err != nil {
		return err
	}
	name := ObjectName(r.Name, r.Version)
	if old := s.remembered(r.Namespace, name); old != nil {
		if err := s.update(ctx, r, old); !errors.Is(err, ErrConflict) {
			return err
		}
	}
	old, err := s.objs.Get(ctx, r.Namespace, name)
	if err != nil {
		if errors.Is(err, ErrObjectNotFound) {
			return fmt.Errorf("update %s: %w", s.ref(r.Namespace, name), ports.ErrReleaseNotFound)
		}
		return fmt.Errorf("update %s: %w", s.ref(r.Namespace, name), err)
	}
	return s.update(ctx, r, old)
}

// update replaces old, the head object of r's revision as last seen.
func (s *Store) update(ctx context.Context, r *release.Release, old *Object) error {
	name := old.Name
	lbls := StorageLabels(r)
	// As Helm: an update writes the labels the revision carries in memory. A
	// revision read from the store carries its object's createdAt, if it still
	// has one; one built in memory (the install or upgrade being recorded)
	// carries none, so its final update drops the label its creation wrote.
	if c, ok := r.StorageLabels[LabelCreatedAt]; ok {
		lbls[LabelCreatedAt] = c
	}
	lbls[LabelModifiedAt] = unixLabel(s.now())
	e, err := s.encode(r, lbls)
	if err != nil {
		return err
	}
	if err := s.writeChunks(ctx, e.chunks); err != nil {
		return fmt.Errorf("update release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, err)
	}
	e.head.ResourceVersion = old.ResourceVersion
	if err := s.objs.Update(ctx, e.head); err != nil {
		s.deleteChunks(ctx, e.chunks)
		s.forget(r.Namespace, name)
		if errors.Is(err, ErrObjectNotFound) {
			return fmt.Errorf("update %s: %w", s.ref(r.Namespace, name), ports.ErrReleaseNotFound)
		}
		return fmt.Errorf("update %s: %w", s.ref(r.Namespace, name), err)
	}
	s.remember(e.head)
	s.deleteChunks(ctx, oldChunks(old))
	return nil
}

// oldChunks names the chunk objects a head refers to.
func oldChunks(head *Object) []*Object {
	n, set := chunkCount(head)
	var out []*Object
	for i := 1; i < n; i++ {
		out = append(out, &Object{Namespace: head.Namespace, Name: chunkName(head.Name, set, i)})
	}
	return out
}

func chunkCount(head *Object) (int, string) {
	n, err := strconv.Atoi(head.Annotations[AnnotationChunks])
	if err != nil || n < 1 {
		return 1, ""
	}
	return n, head.Annotations[AnnotationChunkSet]
}

// read decodes a head object, fetching its chunks. Errors are RecordErrors
// naming the object at fault.
func (s *Store) read(ctx context.Context, head *Object) (*release.Release, error) {
	text, err := s.text(ctx, head)
	if err != nil {
		return nil, err
	}
	r, err := Decode(text)
	if err != nil {
		return nil, s.recordError(head, err)
	}
	// The object, not the payload, says where the revision lives.
	r.Namespace = head.Namespace
	r.Labels, r.StorageLabels = UserLabels(head.Labels), maps.Clone(head.Labels)
	return r, nil
}

// readSummary is read(...).Summarize(), decoding only what a summary needs.
func (s *Store) readSummary(ctx context.Context, head *Object) (release.Summary, error) {
	text, err := s.text(ctx, head)
	if err != nil {
		return release.Summary{}, err
	}
	sum, err := DecodeSummary(text)
	if err != nil {
		return release.Summary{}, s.recordError(head, err)
	}
	sum.Namespace, sum.Labels = head.Namespace, UserLabels(head.Labels)
	return sum, nil
}

func (s *Store) recordError(o *Object, err error) ports.RecordError {
	return ports.RecordError{Object: s.ref(o.Namespace, o.Name), Namespace: o.Namespace, Release: o.Labels[LabelName], Err: err}
}

// text is a head object's record text, its chunks fetched and checked.
func (s *Store) text(ctx context.Context, head *Object) (string, error) {
	n, set := chunkCount(head)
	if n <= 1 {
		return head.Data, nil
	}
	var b strings.Builder
	b.WriteString(head.Data)
	for i := 1; i < n; i++ {
		name := chunkName(head.Name, set, i)
		c, err := s.objs.Get(ctx, head.Namespace, name)
		if err != nil {
			if errors.Is(err, ErrObjectNotFound) {
				err = fmt.Errorf("chunk %d of %d is missing", i, n)
			}
			return "", ports.RecordError{Object: s.ref(head.Namespace, name), Namespace: head.Namespace, Release: head.Labels[LabelName], Err: err}
		}
		b.WriteString(c.Data)
	}
	text := b.String()
	sum := sha256.Sum256([]byte(text))
	if want := head.Annotations[AnnotationDigest]; want != "sha256:"+hex.EncodeToString(sum[:]) {
		return "", s.recordError(head, fmt.Errorf("chunks do not match digest %s", want))
	}
	return text, nil
}

// Summary returns one revision's summary, decoding only what it needs
// (ports.ReleaseSummarizer).
func (s *Store) Summary(ctx context.Context, namespace, name string, revision int) (release.Summary, error) {
	obj := ObjectName(name, revision)
	head, err := s.objs.Get(ctx, namespace, obj)
	if err != nil {
		if errors.Is(err, ErrObjectNotFound) {
			return release.Summary{}, fmt.Errorf("get %s: %w", s.ref(namespace, obj), ports.ErrReleaseNotFound)
		}
		return release.Summary{}, fmt.Errorf("get %s: %w", s.ref(namespace, obj), err)
	}
	if sum, ok := summaryOf(head); ok {
		return sum, nil
	}
	return s.decodeSummary(ctx, head)
}

const (
	// summariesPerList bounds the names in one LIST's selector (its URL length).
	summariesPerList = 100
	// summaryListWorkers bounds concurrent LISTs of Summaries: a page of `list`
	// spread over a few namespaces is read at once.
	summaryListWorkers = 16
)

// Summaries returns the summaries of revs (ports.ReleaseSummarizer): revisions
// of one namespace and revision number are read by one LIST selecting their
// names (a page of `list` is a few LISTs instead of one GET per release), in
// parallel; what such a LIST does not return (a lone revision, a LIST that
// fails, an object whose labels do not match its name) is read by Summary.
func (s *Store) Summaries(ctx context.Context, revs []ports.RevisionRef) ([]release.Summary, []error) {
	sums, errs := make([]release.Summary, len(revs)), make([]error, len(revs))
	type groupKey struct {
		ns  string
		rev int
	}
	var groups [][]int
	at := map[groupKey]int{}
	for i, r := range revs {
		k := groupKey{r.Namespace, r.Revision}
		g, ok := at[k]
		if !ok || len(groups[g]) == summariesPerList {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	one := func(i int) {
		r := revs[i]
		sums[i], errs[i] = s.Summary(ctx, r.Namespace, r.Name, r.Revision)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, summaryListWorkers)
	for _, g := range groups {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			found := s.listRevisions(ctx, revs, g)
			for _, i := range g {
				o := found[ObjectName(revs[i].Name, revs[i].Revision)]
				if o == nil {
					one(i)
					continue
				}
				if sum, ok := summaryOf(o); ok {
					sums[i] = sum
					continue
				}
				sums[i], errs[i] = s.decodeSummary(ctx, o)
			}
		})
	}
	wg.Wait()
	return sums, errs
}

// listRevisions lists the objects of revs[g] (one namespace, one revision
// number) by name; nil when there is one or the LIST fails (Summary reads them).
func (s *Store) listRevisions(ctx context.Context, revs []ports.RevisionRef, g []int) map[string]*Object {
	if len(g) < 2 {
		return nil
	}
	first := revs[g[0]]
	names := make([]string, len(g))
	for k, i := range g {
		names[k] = revs[i].Name
	}
	req, err := labels.NewRequirement(LabelName, selection.In, names)
	if err != nil {
		return nil // a name no selector can hold
	}
	sel := labels.SelectorFromSet(labels.Set{LabelOwner: Owner, LabelVersion: strconv.Itoa(first.Revision)}).Add(*req)
	objs, err := s.objs.List(ctx, first.Namespace, sel.String())
	if err != nil {
		return nil
	}
	out := make(map[string]*Object, len(objs))
	for _, o := range objs {
		if o.Namespace == first.Namespace {
			out[o.Name] = o
		}
	}
	return out
}

// Get returns one revision.
func (s *Store) Get(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	obj := ObjectName(name, revision)
	head, err := s.objs.Get(ctx, namespace, obj)
	if err != nil {
		if errors.Is(err, ErrObjectNotFound) {
			return nil, fmt.Errorf("get %s: %w", s.ref(namespace, obj), ports.ErrReleaseNotFound)
		}
		return nil, fmt.Errorf("get %s: %w", s.ref(namespace, obj), err)
	}
	s.remember(head)
	return s.read(ctx, head)
}

// History returns the readable revisions of a release, oldest first. Like Helm,
// it skips revisions it cannot read; when none is readable it returns the first
// record error.
func (s *Store) History(ctx context.Context, namespace, name string) (release.History, error) {
	m, err := NewMatcher(ports.ListQuery{Namespace: namespace, Name: name})
	if err != nil {
		return nil, err
	}
	objs, err := s.objs.List(ctx, namespace, m.ServerSelector())
	if err != nil {
		return nil, fmt.Errorf("history of release %s/%s: list %ss: %w", namespace, name, s.objs.Kind(), err)
	}
	return ReadableHistory(namespace, name, len(objs), func(i int) (*release.Release, error) {
		o := objs[i]
		if !m.Match(o.Namespace, o.Labels) {
			return nil, nil
		}
		s.remember(o)
		return s.read(ctx, o)
	})
}

// MetadataLister is implemented by Objects that can list objects without their
// data (Kubernetes' PartialObjectMetadata): listing then moves only labels and
// annotations, whatever the size of the records.
type MetadataLister interface {
	ListMetadata(ctx context.Context, namespace, selector string) ([]*Object, error)
}

// List summarises matching revisions from labels and the summary annotation,
// decoding only records without one (those Helm wrote), and none of those
// when asked for labels only.
func (s *Store) List(ctx context.Context, q ports.ListQuery) (ports.ListResult, error) {
	m, err := NewMatcher(q)
	if err != nil {
		return ports.ListResult{}, err
	}
	sel := m.ServerSelector()
	ml, partial := s.objs.(MetadataLister)
	var objs []*Object
	if partial {
		objs, err = ml.ListMetadata(ctx, q.Namespace, sel)
	} else {
		objs, err = s.objs.List(ctx, q.Namespace, sel)
	}
	if err != nil {
		return ports.ListResult{}, fmt.Errorf("list %ss: %w", s.objs.Kind(), err)
	}
	var res ports.ListResult
	problem := func(o *Object, err error) {
		var re ports.RecordError
		if !errors.As(err, &re) {
			re = ports.RecordError{Object: s.ref(o.Namespace, o.Name), Namespace: o.Namespace, Release: o.Labels[LabelName], Err: err}
		}
		res.Problems = append(res.Problems, re)
	}
	listed := len(objs)
	scope := objs[:0:0]
	for _, o := range objs {
		if m.MatchScope(o.Namespace, o.Labels) {
			scope = append(scope, o)
		}
	}
	if m.LatestOnly() {
		idx := Latest(scope, func(o *Object) string { return o.Namespace }, func(o *Object) map[string]string { return o.Labels })
		latest := make([]*Object, len(idx))
		for i, j := range idx {
			latest[i] = scope[j]
		}
		scope = latest
	}
	var need []*Object
	for _, o := range scope {
		if !m.Match(o.Namespace, o.Labels) {
			continue
		}
		if sum, ok := summaryOf(o); ok {
			res.Releases = append(res.Releases, sum)
			continue
		}
		if q.LabelsOnly {
			if sum, ok := labelSummary(o); ok {
				res.Releases = append(res.Releases, sum)
				continue
			}
		}
		if partial {
			need = append(need, o)
			continue
		}
		sum, err := s.decodeSummary(ctx, o)
		if err != nil {
			problem(o, err)
			continue
		}
		res.Releases = append(res.Releases, sum)
	}
	if len(need) > 0 {
		full, err := s.fetch(ctx, q.Namespace, sel, need, listed)
		if err != nil {
			return ports.ListResult{}, err
		}
		for i, fo := range full {
			if fo == nil {
				continue // deleted since the listing
			}
			sum, err := s.decodeSummary(ctx, fo)
			if err != nil {
				problem(need[i], err)
				continue
			}
			res.Releases = append(res.Releases, sum)
		}
	}
	release.SortSummaries(res.Releases)
	return res, nil
}

// fetchWorkers bounds concurrent reads of single records.
const fetchWorkers = 8

// fetch returns the full objects of need (nil for those gone): one by one, in
// parallel, when they are few of the listed objects (list's latest revisions
// of Helm-written releases), else by one full listing.
func (s *Store) fetch(ctx context.Context, namespace, sel string, need []*Object, listed int) ([]*Object, error) {
	out := make([]*Object, len(need))
	if len(need)*4 <= listed {
		errs := make([]error, len(need))
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(fetchWorkers, len(need)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					out[i], errs[i] = s.objs.Get(ctx, need[i].Namespace, need[i].Name)
					if errors.Is(errs[i], ErrObjectNotFound) {
						out[i], errs[i] = nil, nil
					}
				}
			}()
		}
		for i := range need {
			next <- i
		}
		close(next)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("get %s: %w", s.ref(need[i].Namespace, need[i].Name), err)
			}
		}
		return out, nil
	}
	full, err := s.objs.List(ctx, namespace, sel)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", s.objs.Kind(), err)
	}
	byName := make(map[string]*Object, len(full))
	for _, o := range full {
		byName[o.Namespace+"/"+o.Name] = o
	}
	for i, o := range need {
		out[i] = byName[o.Namespace+"/"+o.Name]
	}
	return out, nil
}

// summaryOf reads a revision's summary from labels and annotation alone.
func summaryOf(o *Object) (release.Summary, bool) {
	js, ok := o.Annotations[AnnotationSummary]
	if !ok {
		return release.Summary{}, false
	}
	sum, ok := labelSummary(o)
	var a summary
	if !ok || json.Unmarshal([]byte(js), &a) != nil {
		return release.Summary{}, false
	}
	sum.Partial = false
	sum.Updated, sum.Chart, sum.AppVersion, sum.Description = a.LastDeployed, a.Chart, a.AppVersion, a.Description
	sum.FirstApplied, sum.RollbackRevision = a.FirstDeployed, a.RollbackRevision
	return sum, true
}

// labelSummary is what a revision's storage labels alone tell (ListQuery.LabelsOnly).
func labelSummary(o *Object) (release.Summary, bool) {
	rev, err := strconv.Atoi(o.Labels[LabelVersion])
	if err != nil {
		return release.Summary{}, false
	}
	return release.Summary{
		Name:      o.Labels[LabelName],
		Namespace: o.Namespace,
		Revision:  rev,
		Status:    release.Status(o.Labels[LabelStatus]),
		Labels:    UserLabels(o.Labels),
		Partial:   true,
	}, true
}

// decodeSummary decodes a record to summarise it.
func (s *Store) decodeSummary(ctx context.Context, o *Object) (release.Summary, error) {
	sum, err := s.readSummary(ctx, o)
	if err != nil {
		return release.Summary{}, err
	}
	// Helm keeps the status label in step with the record; the label wins, as in
	// Helm's own listing by status.
	if st := o.Labels[LabelStatus]; st != "" {
		sum.Status = release.Status(st)
	}
	return sum, nil
}

// Delete removes one revision and its chunks and returns it.
func (s *Store) Delete(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	obj := ObjectName(name, revision)
	head, err := s.objs.Get(ctx, namespace, obj)
	if err != nil {
		if errors.Is(err, ErrObjectNotFound) {
			return nil, fmt.Errorf("delete %s: %w", s.ref(namespace, obj), ports.ErrReleaseNotFound)
		}
		return nil, fmt.Errorf("delete %s: %w", s.ref(namespace, obj), err)
	}
	s.forget(namespace, obj)
	// A corrupt revision can still be deleted; the caller gets the error with it.
	r, readErr := s.read(ctx, head)
	if err := s.objs.Delete(ctx, namespace, obj); err != nil {
		if errors.Is(err, ErrObjectNotFound) {
			return nil, fmt.Errorf("delete %s: %w", s.ref(namespace, obj), ports.ErrReleaseNotFound)
		}
		return nil, fmt.Errorf("delete %s: %w", s.ref(namespace, obj), err)
	}
	// Remove every chunk of this revision, including orphans of interrupted writes.
	sel := LabelChunkOf + "=" + name + "," + LabelChunkVersion + "=" + strconv.Itoa(revision)
	if chunks, err := s.objs.List(ctx, namespace, sel); err == nil {
		s.deleteChunks(ctx, chunks)
	}
	if readErr != nil {
		return nil, readErr
	}
	return r, nil
}
