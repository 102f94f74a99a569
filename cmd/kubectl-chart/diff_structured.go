package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// structuredEntry is one object of helm-diff's --output structured.
type structuredEntry struct {
	APIVersion        string          `json:"apiVersion,omitempty"`
	Kind              string          `json:"kind,omitempty"`
	Namespace         string          `json:"namespace,omitempty"`
	Name              string          `json:"name,omitempty"`
	ChangeType        string          `json:"changeType,omitempty"`
	ResourceStatus    structuredExist `json:"resourceStatus"`
	Changes           []fieldChange   `json:"changes,omitempty"`
	ChangesSuppressed bool            `json:"changesSuppressed,omitempty"`
}

type structuredExist struct {
	OldExists bool `json:"oldExists"`
	NewExists bool `json:"newExists"`
}

// fieldChange is one field that changes: Path is its parent as a JSON
// pointer, Field its own name (or index).
type fieldChange struct {
	Path     string `json:"path,omitempty"`
	Field    string `json:"field,omitempty"`
	Change   string `json:"change"`
	OldValue any    `json:"oldValue,omitempty"`
	NewValue any    `json:"newValue,omitempty"`
}

// structured writes the entries as a JSON array, with the fields each
// changes (none for objects added or removed, or suppressed).
func (r diffReport) structured(entries []reportEntry) error {
	out := make([]structuredEntry, 0, len(entries))
	for _, e := range entries {
		ref := e.Step.Ref
		s := structuredEntry{
			APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, ChangeType: e.change,
			ResourceStatus:    structuredExist{OldExists: len(e.Before) > 0, NewExists: len(e.After) > 0},
			ChangesSuppressed: e.suppressed,
		}
		if e.change == changeModify && !e.suppressed {
			var before, after any
			if err := yaml.Unmarshal(e.Before, &before); err != nil {
				return fmt.Errorf("show %s: %w", ref, err)
			}
			if err := yaml.Unmarshal(e.After, &after); err != nil {
				return fmt.Errorf("show %s: %w", ref, err)
			}
			s.Changes = fieldChanges(nil, before, after, nil)
		}
		out = append(out, s)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode changes: %w", err)
	}
	_, err = r.out.Write(append(b, '\n'))
	return err
}

// fieldChanges appends to out the leaves that differ between before and
// after, at path; maps are walked by sorted key, lists by index.
func fieldChanges(path []string, before, after any, out []fieldChange) []fieldChange {
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if bok && aok {
		keys := make([]string, 0, len(bm)+len(am))
		for k := range bm {
			keys = append(keys, k)
		}
		for k := range am {
			if _, ok := bm[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = fieldChanges(append(slices.Clip(path), k), bm[k], am[k], out)
		}
		return out
	}
	bl, bok := before.([]any)
	al, aok := after.([]any)
	if bok && aok {
		for i := range max(len(bl), len(al)) {
			var b, a any
			if i < len(bl) {
				b = bl[i]
			}
			if i < len(al) {
				a = al[i]
			}
			out = fieldChanges(append(slices.Clip(path), strconv.Itoa(i)), b, a, out)
		}
		return out
	}
	if reflect.DeepEqual(before, after) {
		return out
	}
	c := fieldChange{Change: "replace", OldValue: before, NewValue: after}
	switch {
	case before == nil:
		c.Change = "add"
	case after == nil:
		c.Change = "remove"
	}
	if n := len(path); n > 0 {
		c.Path, c.Field = pointer(path[:n-1]), path[n-1]
	}
	return append(out, c)
}

// pointer is a JSON pointer (RFC 6901) to path.
func pointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}
