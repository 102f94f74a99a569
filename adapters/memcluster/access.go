package memcluster

import (
	"context"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// VerbReviewAccess is the Call of ReviewAccess.
const VerbReviewAccess = "review-access"

// Restrict limits what ReviewAccess says the caller may do to the given
// permissions, as RBAC rules would: each names a verb ("*" for any), a
// resource by Group and Resource ("*" for any) or by APIVersion and Kind, and
// a namespace ("" grants it in every namespace and cluster-wide, as a
// ClusterRoleBinding does). Restrict() with none allows nothing; nil, the
// default, allows everything. It restricts only the answers of ReviewAccess:
// other calls are not authorized (a test hook for preflight checks).
func (c *Cluster) Restrict(allow ...ports.Access) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if allow == nil {
		allow = []ports.Access{}
	}
	c.allowed = c.resolveAll(allow)
}

// Unrestrict allows everything again.
func (c *Cluster) Unrestrict() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowed = nil
}

// ReviewAccess answers from the permissions Restrict set.
func (c *Cluster) ReviewAccess(_ context.Context, want []ports.Access) ([]ports.Access, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbReviewAccess})
	var denied []ports.Access
	for _, a := range want {
		r, ok := c.resolve(a)
		if !ok {
			continue
		}
		if c.allowed != nil && !grants(c.allowed, r) {
			denied = append(denied, r)
		}
	}
	return denied, nil
}

// resolveAll resolves the kinds of rules; rules of kinds not served are kept
// as they are. Called with mu held.
func (c *Cluster) resolveAll(as []ports.Access) []ports.Access {
	out := make([]ports.Access, 0, len(as))
	for _, a := range as {
		if r, ok := c.resolve(a); ok {
			a = r
		}
		out = append(out, a)
	}
	return out
}

// resolve fills in the resource of a permission named by kind; false for a
// kind not served. Called with mu held.
func (c *Cluster) resolve(a ports.Access) (ports.Access, bool) {
	if a.Resource != "" {
		return a, true
	}
	k, err := c.lookup(a.APIVersion, a.Kind)
	if err != nil {
		return a, false
	}
	a.Group, a.Resource = k.group, resourceOf(k)
	if !k.namespaced {
		a.Namespace = ""
	}
	return a, true
}

// resourceOf is a kind's resource: its CRD's plural, or the lower-case plural
// of the kind, as the API server names built-in resources.
func resourceOf(k *kindInfo) string {
	if k.crd != "" {
		return strings.TrimSuffix(k.crd, "."+k.group)
	}
	return pluralOf(k.kind)
}

// pluralOf guesses a resource name from a kind, as kubectl's
// UnsafeGuessKindToResource does (Endpoints stay Endpoints).
func pluralOf(kind string) string {
	r := strings.ToLower(kind)
	switch {
	case r == "endpoints":
		return r
	case strings.HasSuffix(r, "s"), strings.HasSuffix(r, "x"), strings.HasSuffix(r, "ch"), strings.HasSuffix(r, "sh"):
		return r + "es"
	case strings.HasSuffix(r, "y") && len(r) > 1 && !strings.ContainsRune("aeiou", rune(r[len(r)-2])):
		return r[:len(r)-1] + "ies"
	}
	return r + "s"
}

// grants reports whether rules allow a resolved permission.
func grants(rules []ports.Access, a ports.Access) bool {
	for _, r := range rules {
		if (r.Verb == "*" || r.Verb == a.Verb) &&
			(r.Resource == "*" || r.Resource == a.Resource && r.Group == a.Group) &&
			(r.Namespace == "" || r.Namespace == a.Namespace) {
			return true
		}
	}
	return false
}
