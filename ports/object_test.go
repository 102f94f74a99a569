package ports

import (
	"reflect"
	"testing"
)

func TestObject(t *testing.T) {
	o := Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{
		"name": "web", "labels": map[string]any{"a": "1"},
	}}
	if o.GetAPIVersion() != "apps/v1" || o.GetKind() != "Deployment" || o.GetName() != "web" || o.Group() != "apps" {
		t.Errorf("accessors: %q %q %q %q", o.GetAPIVersion(), o.GetKind(), o.GetName(), o.Group())
	}
	o.SetNamespace("prod")
	if o.GetNamespace() != "prod" || RefOf(o).String() != "Deployment prod/web" {
		t.Errorf("namespace %q, ref %s", o.GetNamespace(), RefOf(o))
	}
	o.SetNamespace("")
	if _, ok := o["metadata"].(map[string]any)["namespace"]; ok || RefOf(o).String() != "Deployment web" {
		t.Error("SetNamespace(\"\") kept the namespace")
	}
	l := o.GetLabels()
	l["b"] = "2"
	o.SetLabels(l)
	o.SetAnnotations(map[string]string{"x": "y"})
	if !reflect.DeepEqual(o.GetLabels(), map[string]string{"a": "1", "b": "2"}) || o.GetAnnotations()["x"] != "y" {
		t.Errorf("labels %v annotations %v", o.GetLabels(), o.GetAnnotations())
	}
	if (Object{"apiVersion": "v1", "kind": "ConfigMap"}).Group() != "" {
		t.Error("core group")
	}
	empty := Object{}
	if empty.GetName() != "" || empty.GetLabels() != nil {
		t.Error("empty object")
	}
	list := Object{"apiVersion": "v1", "kind": "List", "items": []any{map[string]any{"kind": "ConfigMap"}, "junk"}}
	if !list.IsList() || len(list.Items()) != 1 || list.Items()[0].GetKind() != "ConfigMap" {
		t.Errorf("list items = %v", list.Items())
	}
	if o.IsList() || o.Items() != nil {
		t.Error("a Deployment is not a list")
	}
}
