package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/singleflight"
	authv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// reviewWorkers bounds concurrent access reviews.
const reviewWorkers = 16

// accessKey is one permission as authorization sees it.
type accessKey struct{ verb, group, resource, namespace string }

// accessCache keeps what the API server answered for the life of the Cluster
// (one command): an operation plans before taking its lock and may plan again
// under it, asking the same questions.
type accessCache struct {
	mu sync.Mutex
	// rules are the caller's rules per namespace (SelfSubjectRulesReview); nil
	// when the review failed.
	rules map[string]*[]authv1.ResourceRule
	// allowed are SelfSubjectAccessReview answers.
	allowed map[accessKey]bool
	// asking makes callers that ask the same question at once (the
	// releases of a stack, planned together) wait for one review.
	asking singleflight.Group
}

// ReviewAccess answers which permissions the caller lacks. Namespaced
// permissions are read from one SelfSubjectRulesReview per namespace; what
// those rules do not grant (they may be incomplete: other authorizers than
// RBAC) and cluster-scoped permissions are asked one by one with
// SelfSubjectAccessReviews, which are authoritative.
func (c *Cluster) ReviewAccess(ctx context.Context, want []ports.Access) ([]ports.Access, error) {
	var items []ports.Access
	for _, a := range want {
		if a.Resource == "" {
			m, err := c.mapping(a.APIVersion, a.Kind)
			if errors.Is(err, ports.ErrUnknownKind) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("review access: %w", err)
			}
			a.Group, a.Resource = m.Resource.Group, m.Resource.Resource
			if m.Scope.Name() != meta.RESTScopeNameNamespace {
				a.Namespace = ""
			}
		}
		items = append(items, a)
	}
	var namespaces []string
	for _, a := range items {
		if a.Namespace != "" && !slices.Contains(namespaces, a.Namespace) {
			namespaces = append(namespaces, a.Namespace)
		}
	}
	rules := make([]*[]authv1.ResourceRule, len(namespaces))
	concurrently(len(namespaces), func(i int) { rules[i] = c.rulesIn(ctx, namespaces[i]) })
	allowed := make([]bool, len(items))
	var ask []int
	for i, a := range items {
		if a.Namespace != "" {
			if r := rules[slices.Index(namespaces, a.Namespace)]; r != nil && rulesAllow(*r, a) {
				allowed[i] = true
				continue
			}
		}
		ask = append(ask, i)
	}
	errs := make([]error, len(ask))
	concurrently(len(ask), func(j int) {
		allowed[ask[j]], errs[j] = c.canI(ctx, items[ask[j]])
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var denied []ports.Access
	for i, a := range items {
		if !allowed[i] {
			denied = append(denied, a)
		}
	}
	return denied, nil
}

// concurrently calls fn(0..n-1) with at most reviewWorkers at a time.
func concurrently(n int, fn func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(reviewWorkers, n) {
		wg.Go(func() {
			for i := range work {
				fn(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// rulesIn reads the caller's rules in a namespace, once; nil when they cannot
// be read (each permission is then asked for).
func (c *Cluster) rulesIn(ctx context.Context, namespace string) *[]authv1.ResourceRule {
	c.access.mu.Lock()
	r, ok := c.access.rules[namespace]
	c.access.mu.Unlock()
	if ok {
		return r
	}
	v, _, _ := c.access.asking.Do("rules\x00"+namespace, func() (any, error) {
		var r *[]authv1.ResourceRule
		review, err := c.authz.SelfSubjectRulesReviews().Create(ctx, &authv1.SelfSubjectRulesReview{
			Spec: authv1.SelfSubjectRulesReviewSpec{Namespace: namespace},
		}, metav1.CreateOptions{})
		if err == nil {
			rules := review.Status.ResourceRules
			r = &rules
		}
		c.access.mu.Lock()
		if c.access.rules == nil {
			c.access.rules = map[string]*[]authv1.ResourceRule{}
		}
		c.access.rules[namespace] = r
		c.access.mu.Unlock()
		return r, nil
	})
	return v.(*[]authv1.ResourceRule)
}

// canI asks whether the caller may do one thing, once.
func (c *Cluster) canI(ctx context.Context, a ports.Access) (bool, error) {
	key := accessKey{a.Verb, a.Group, a.Resource, a.Namespace}
	c.access.mu.Lock()
	ok, known := c.access.allowed[key]
	c.access.mu.Unlock()
	if known {
		return ok, nil
	}
	v, err, _ := c.access.asking.Do(fmt.Sprintf("can\x00%s\x00%s\x00%s\x00%s", a.Verb, a.Group, a.Resource, a.Namespace), func() (any, error) {
		review, err := c.authz.SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{
			Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
				Namespace: a.Namespace, Verb: a.Verb, Group: a.Group, Resource: a.Resource,
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return false, fmt.Errorf("review access (%s): %w", a, err)
		}
		c.access.mu.Lock()
		if c.access.allowed == nil {
			c.access.allowed = map[accessKey]bool{}
		}
		c.access.allowed[key] = review.Status.Allowed
		c.access.mu.Unlock()
		return review.Status.Allowed, nil
	})
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

// rulesAllow reports whether rules grant a permission on every object of its
// resource (rules limited to resource names do not).
func rulesAllow(rules []authv1.ResourceRule, a ports.Access) bool {
	for _, r := range rules {
		if len(r.ResourceNames) == 0 && matches(r.Verbs, a.Verb) && matches(r.APIGroups, a.Group) && matches(r.Resources, a.Resource) {
			return true
		}
	}
	return false
}

func matches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}
