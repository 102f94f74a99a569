package memcluster

import (
	"context"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Create creates obj as fieldManager, owning every field it sets with an
// update, as the API server's create does; an object that exists, being
// deleted or not, is refused in the server's words.
func (c *Cluster) Create(_ context.Context, obj ports.Object, fieldManager string) (ports.Object, error) {
	ref := ports.RefOf(obj)
	manager := ports.FieldManagerOr(fieldManager)
	c.mu.Lock()
	c.record(Call{Verb: VerbCreate, Ref: ref, Manager: manager})
	c.mu.Unlock()
	in, err := normalize(map[string]any(obj))
	if err != nil {
		return nil, &ports.CreateError{Ref: ref, Err: err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, key, err := c.target(in)
	if err != nil {
		return nil, &ports.CreateError{Ref: ref, Err: err}
	}
	if e := c.objects[key]; e != nil {
		msg := fmt.Sprintf("%s %q already exists", qualifiedResource(k), key.name)
		if _, deleting := meta(e.obj)["deletionTimestamp"]; deleting {
			msg = "object is being deleted: " + msg
		}
		return nil, &ports.CreateError{Ref: ref, Err: &existsError{msg: msg}}
	}
	out, err := c.update(manager, k, key, in)
	if err != nil {
		return nil, &ports.CreateError{Ref: ref, Err: err}
	}
	return out, nil
}

// qualifiedResource is a kind's resource as the API server names it in
// messages (configmaps, jobs.batch).
func qualifiedResource(k *kindInfo) string {
	if k.group == "" {
		return resourceOf(k)
	}
	return resourceOf(k) + "." + k.group
}

// existsError is the refusal of a create of an object that exists.
type existsError struct{ msg string }

func (e *existsError) Error() string { return e.msg }
func (e *existsError) Unwrap() error { return ports.ErrAlreadyExists }

// Replace writes obj whole over the live object as fieldManager, as the
// API server's update does.
func (c *Cluster) Replace(_ context.Context, obj ports.Object, fieldManager string) (ports.Object, error) {
	ref := ports.RefOf(obj)
	manager := ports.FieldManagerOr(fieldManager)
	c.mu.Lock()
	c.record(Call{Verb: VerbReplace, Ref: ref, Manager: manager})
	c.mu.Unlock()
	in, err := normalize(map[string]any(obj))
	if err != nil {
		return nil, &ports.ApplyError{Ref: ref, Err: err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, key, err := c.target(in)
	if err != nil {
		return nil, &ports.ApplyError{Ref: ref, Err: err}
	}
	if c.objects[key] == nil {
		return nil, fmt.Errorf("replace %s: %w", ref, ports.ErrObjectNotFound)
	}
	out, err := c.update(manager, k, key, in)
	if err != nil {
		return nil, &ports.ApplyError{Ref: ref, Err: err}
	}
	return out, nil
}
