package manifest

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Head is what sorting needs of a document: its kind, name and annotations.
type Head struct {
	Version  string    `json:"apiVersion"`
	Kind     string    `json:"kind,omitempty"`
	Metadata *HeadMeta `json:"metadata,omitempty"`
}

// HeadMeta is the part of metadata that sorting reads.
type HeadMeta struct {
	Name        string            `json:"name"`
	Annotations map[string]string `json:"annotations"`
}

// Manifest is one document of a rendered template that is not a hook.
type Manifest struct {
	// Name is the template path the document came from.
	Name    string
	Content string
	Head    *Head
}

// ParseError is a rendered document that is not valid YAML for a Kubernetes object.
type ParseError struct {
	Template string
	Err      error
	// Dialect names Helm's head type as that Helm release spells it.
	Dialect dialect.Dialect
}

func (e *ParseError) Error() string {
	msg := helmTypeNames(e.Err.Error())
	if e.Dialect.IsHelm4() {
		// Helm 4 moved the head type to package util (pkg/release/v1/util).
		msg = strings.ReplaceAll(msg, "type releaseutil.SimpleHead", "type util.SimpleHead")
	}
	return fmt.Sprintf("YAML parse error on %s: %s", e.Template, msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// helmNames renames our head types to Helm's in decoding errors: Helm's head is
// releaseutil.SimpleHead, whose metadata is an anonymous struct (so its fields
// read ".metadata.name" and its type is spelled out).
var helmNames = strings.NewReplacer(
	"Go struct field HeadMeta.", "Go struct field .",
	"Go struct field Head.", "Go struct field SimpleHead.",
	"type manifest.HeadMeta", `type struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" }`,
	"type manifest.Head", "type releaseutil.SimpleHead",
)

// helmTypeNames shows the head types under Helm's Go names in decoding errors, so
// the message users see is the one Helm prints for the same broken template.
func helmTypeNames(msg string) string {
	return helmNames.Replace(msg)
}

// Sort splits every rendered template (by template path) into documents and returns
// the hooks and the other manifests, each in Helm's order for the given kind order.
// Partials and empty templates are skipped; unknown hook events drop the document,
// reported through skipped.
func Sort(files map[string]string, order KindOrder, skipped func(format string, args ...any)) ([]*release.Hook, []Manifest, error) {
	return SortFor(dialect.Helm3, files, order, skipped)
}

// SortFor is Sort with the dialect's document separation (SplitFor) and error texts.
func SortFor(dia dialect.Dialect, files map[string]string, order KindOrder, skipped func(format string, args ...any)) ([]*release.Hook, []Manifest, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var docs []document
	for _, p := range paths {
		content := files[p]
		if strings.HasPrefix(path.Base(p), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range SplitFor(dia, content) {
			docs = append(docs, document{template: p, content: doc})
		}
	}
	parseHeads(docs)

	var hooks []*release.Hook
	var generic []Manifest
	for _, d := range docs {
		if d.err != nil {
			return hooks, generic, &ParseError{Template: d.template, Err: d.err, Dialect: dia}
		}
		hookTypes, isHook := "", false
		if d.head.Metadata != nil {
			hookTypes, isHook = d.head.Metadata.Annotations[release.HookAnnotation]
		}
		if !isHook {
			generic = append(generic, Manifest{Name: d.template, Content: d.content, Head: d.head})
			continue
		}
		h, err := newHook(d.template, d.content, d.head, hookTypes)
		if err != nil {
			if skipped != nil {
				skipped("info: skipping unknown hook: %q", hookTypes)
			}
			continue
		}
		hooks = append(hooks, h)
	}
	return SortHooks(hooks, order), SortManifests(generic, order), nil
}

// document is one YAML document of a rendered template and its parsed head.
type document struct {
	template string
	content  string
	head     *Head
	err      error
}

// parseHeads parses every document's head, spreading the work over the CPUs:
// with large CRDs this parse is most of a render. Results stay in document order.
func parseHeads(docs []document) {
	workers := min(runtime.GOMAXPROCS(0), len(docs))
	if workers <= 1 {
		for i := range docs {
			docs[i].head, docs[i].err = parseHead(docs[i].content)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(docs) {
					return
				}
				docs[i].head, docs[i].err = parseHead(docs[i].content)
			}
		})
	}
	wg.Wait()
}

var errUnknownHook = errors.New("unknown hook event")

func newHook(p, doc string, head *Head, hookTypes string) (*release.Hook, error) {
	ann := head.Metadata.Annotations
	weight, err := strconv.Atoi(ann[release.HookWeightAnnotation])
	if err != nil {
		weight = 0
	}
	h := &release.Hook{
		Name:              head.Metadata.Name,
		Kind:              head.Kind,
		Path:              p,
		Manifest:          doc,
		Events:            []release.HookEvent{},
		Weight:            weight,
		DeletePolicies:    []release.HookDeletePolicy{},
		OutputLogPolicies: []release.HookOutputLogPolicy{},
	}
	for _, t := range strings.Split(hookTypes, ",") {
		e, ok := release.ParseHookEvent(strings.ToLower(strings.TrimSpace(t)))
		if !ok {
			return nil, errUnknownHook
		}
		h.Events = append(h.Events, e)
	}
	for _, v := range annotationList(ann, release.HookDeleteAnnotation) {
		h.DeletePolicies = append(h.DeletePolicies, release.HookDeletePolicy(v))
	}
	for _, v := range annotationList(ann, release.HookOutputLogAnnotation) {
		h.OutputLogPolicies = append(h.OutputLogPolicies, release.HookOutputLogPolicy(v))
	}
	return h, nil
}

func annotationList(ann map[string]string, key string) []string {
	v, ok := ann[key]
	if !ok {
		return nil
	}
	var out []string
	for _, x := range strings.Split(v, ",") {
		out = append(out, strings.ToLower(strings.TrimSpace(x)))
	}
	return out
}
