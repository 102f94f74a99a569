package ports

import "strings"

// Object is a Kubernetes object as its JSON map (what a manifest decodes to).
// The core uses it instead of apimachinery's Unstructured, which would pull an
// HTTP stack into the domain.
type Object map[string]any

func (o Object) str(keys ...string) string {
	var cur any = map[string]any(o)
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[k]
	}
	s, _ := cur.(string)
	return s
}

func (o Object) metadata() map[string]any {
	m, ok := o["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

// GetAPIVersion is the object's apiVersion.
func (o Object) GetAPIVersion() string { return o.str("apiVersion") }

// GetKind is the object's kind.
func (o Object) GetKind() string { return o.str("kind") }

// GetName is metadata.name.
func (o Object) GetName() string { return o.str("metadata", "name") }

// GetNamespace is metadata.namespace.
func (o Object) GetNamespace() string { return o.str("metadata", "namespace") }

// Group is the API group of apiVersion ("" for the core group).
func (o Object) Group() string {
	if i := strings.LastIndex(o.GetAPIVersion(), "/"); i >= 0 {
		return o.GetAPIVersion()[:i]
	}
	return ""
}

// SetNamespace sets metadata.namespace; "" removes it.
func (o Object) SetNamespace(ns string) {
	if ns == "" {
		if m, ok := o["metadata"].(map[string]any); ok {
			delete(m, "namespace")
		}
		return
	}
	o.metadata()["namespace"] = ns
}

func (o Object) stringMap(key string) map[string]string {
	m, _ := o["metadata"].(map[string]any)
	raw, _ := m[key].(map[string]any)
	if raw == nil {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

func (o Object) setStringMap(key string, v map[string]string) {
	raw := make(map[string]any, len(v))
	for k, s := range v {
		raw[k] = s
	}
	o.metadata()[key] = raw
}

// GetLabels is a copy of metadata.labels.
func (o Object) GetLabels() map[string]string { return o.stringMap("labels") }

// SetLabels replaces metadata.labels.
func (o Object) SetLabels(l map[string]string) { o.setStringMap("labels", l) }

// GetAnnotations is a copy of metadata.annotations.
func (o Object) GetAnnotations() map[string]string { return o.stringMap("annotations") }

// SetAnnotations replaces metadata.annotations.
func (o Object) SetAnnotations(a map[string]string) { o.setStringMap("annotations", a) }

// Items are the objects of a List kind (apiVersion v1, kind ending in List,
// with items), or nil.
func (o Object) Items() []Object {
	raw, ok := o["items"].([]any)
	if !ok || !strings.HasSuffix(o.GetKind(), "List") {
		return nil
	}
	out := make([]Object, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			out = append(out, Object(m))
		}
	}
	return out
}

// IsList reports whether the object is a list of objects.
func (o Object) IsList() bool {
	_, ok := o["items"].([]any)
	return ok && strings.HasSuffix(o.GetKind(), "List")
}
