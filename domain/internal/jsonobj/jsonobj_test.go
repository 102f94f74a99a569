package jsonobj

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

type sample struct {
	Name    string `json:"name,omitempty"`
	Deleted string `json:"deleted"`
	Count   int    `json:"count"`
	Skip    string `json:"-"`
	Plain   bool
	hidden  int //nolint:unused // proves unexported fields are not fields
}

var sampleFields = FieldsOf(sample{})

func TestFieldsOf(t *testing.T) {
	if want := []string{"name", "deleted", "count", "Plain"}; !reflect.DeepEqual(sampleFields.names, want) {
		t.Fatalf("FieldsOf = %v, want %v", sampleFields.names, want)
	}
	if FieldsOf(&sample{}).names == nil {
		t.Fatal("FieldsOf a pointer lists nothing")
	}
}

// roundTrip decodes in as a sample, lets change modify it and encodes it again.
func roundTrip(t *testing.T, in string, change func(*sample)) string {
	t.Helper()
	var s sample
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	rest := Read([]byte(in), sampleFields)
	if change != nil {
		change(&s)
	}
	enc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := rest.Write(enc)
	if !json.Valid(out) {
		t.Fatalf("Write made invalid JSON: %s", out)
	}
	return string(out)
}

func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%v: %s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	tests := map[string]struct {
		in, want string
		change   func(*sample)
	}{
		"unknown members are written back as read": {
			in:   `{"name":"a","deleted":"","count":1,"Plain":true,"apply_method":"ssa","n":12345678901234567890,"o":{"x":[1,"}",{"y":"\"{"}]},"s":"<&>"}`,
			want: `{"name":"a","deleted":"","count":1,"Plain":true,"apply_method":"ssa","n":12345678901234567890,"o":{"x":[1,"}",{"y":"\"{"}]},"s":"<&>"}`,
		},
		"fields the object lacked stay out while zero": {
			in:   `{"name":"a","Plain":false}`,
			want: `{"name":"a","Plain":false}`,
		},
		"fields the object lacked are written once set": {
			in:     `{"name":"a"}`,
			change: func(s *sample) { s.Deleted, s.Count = "yesterday", 2 },
			want:   `{"name":"a","deleted":"yesterday","count":2}`,
		},
		"changed fields are written, unknown ones kept": {
			in:     `{"name":"a","deleted":"","count":1,"Plain":false,"extra":[1,2]}`,
			change: func(s *sample) { s.Name = "b" },
			want:   `{"name":"b","deleted":"","count":1,"Plain":false,"extra":[1,2]}`,
		},
		"a field cleared by omitempty goes": {
			in:     `{"name":"a","deleted":"","count":1,"Plain":false,"extra":null}`,
			change: func(s *sample) { s.Name = "" },
			want:   `{"deleted":"","count":1,"Plain":false,"extra":null}`,
		},
		"keys match fields case-insensitively, as encoding/json decodes them": {
			in:   `{"NAME":"a","deleted":"","count":1,"plain":true}`,
			want: `{"name":"a","deleted":"","count":1,"Plain":true}`,
		},
		"the last of duplicate unknown members counts": {
			in:   `{"name":"a","deleted":"","count":1,"Plain":false,"x":1,"x":2}`,
			want: `{"name":"a","deleted":"","count":1,"Plain":false,"x":2}`,
		},
		"escaped keys": {
			in:   `{"name":"a","deleted":"","count":1,"Plain":false,"a\"b\u00e9":true}`,
			want: `{"name":"a","deleted":"","count":1,"Plain":false,"a\"bé":true}`,
		},
		"whitespace": {
			in:   " {\n \"name\" : \"a\" ,\n\t\"deleted\":\"\", \"count\" : 1 , \"Plain\":false , \"z\" : [ 1 , 2 ] \n} ",
			want: `{"name":"a","deleted":"","count":1,"Plain":false,"z":[1,2]}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sameJSON(t, roundTrip(t, tc.in, tc.change), tc.want)
		})
	}
}

func TestZeroRestWritesTheEncodingAsItIs(t *testing.T) {
	enc := []byte(`{"name":"a","deleted":"","count":0,"Plain":false}`)
	if got := (Rest{}).Write(enc); &got[0] != &enc[0] {
		t.Error("a zero rest copied the encoding")
	}
	full := Read(enc, sampleFields)
	if !full.IsZero() {
		t.Errorf("an object with every field and nothing else has rest %+v", full)
	}
	if r := Read([]byte("null"), sampleFields); !r.IsZero() {
		t.Errorf("null has rest %+v", r)
	}
}

func TestUnknown(t *testing.T) {
	r := Read([]byte(`{"b":1,"name":"x","a":{"c":2}}`), sampleFields)
	got := r.Unknown()
	if len(got) != 2 || got[0].Key != "b" || string(got[0].Value) != "1" || got[1].Key != "a" || string(got[1].Value) != `{"c":2}` {
		t.Errorf("Unknown = %+v", got)
	}
}

func TestGetSet(t *testing.T) {
	obj := []byte(`{"a":1,"metadata":{"name":"x"},"b":"}"}`)
	if got := Get(obj, "metadata"); string(got) != `{"name":"x"}` {
		t.Errorf("Get = %s", got)
	}
	if got := Get(obj, "none"); got != nil {
		t.Errorf("Get of a missing member = %s", got)
	}
	if got := Set(obj, "metadata", []byte(`{"name":"y","k":true}`)); string(got) != `{"a":1,"metadata":{"name":"y","k":true},"b":"}"}` {
		t.Errorf("Set = %s", got)
	}
	if got := Set(obj, "none", []byte(`1`)); string(got) != string(obj) {
		t.Errorf("Set of a missing member = %s", got)
	}
}

func TestElementsArray(t *testing.T) {
	var got [][]byte
	Elements([]byte(` [ {"a":"]"} , null,[1,[2]], "x" ] `), func(i int, v []byte) {
		if i != len(got) {
			t.Errorf("element %d called as %d", len(got), i)
		}
		got = append(got, v)
	})
	if back := Array(got); string(back) != `[{"a":"]"},null,[1,[2]],"x"]` {
		t.Errorf("Array(Elements) = %s", back)
	}
	Elements([]byte(`{"a":1}`), func(int, []byte) { t.Error("an object has elements") })
	if got := Array(nil); string(got) != "[]" {
		t.Errorf("Array(nil) = %s", got)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"name":"a","x":{"y":[1,2,"]"]},"z":null}`)
	f.Add(`{}`)
	f.Add(`[]`)
	f.Add("{\"\x81\":null}")
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			// JSON text is UTF-8 (RFC 8259); encoding/json reads other bytes
			// as U+FFFD, and no record Helm or we write holds them.
			return
		}
		var s sample
		if json.Unmarshal([]byte(in), &s) != nil {
			return
		}
		rest := Read([]byte(in), sampleFields)
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := rest.Write(enc)
		if !json.Valid(out) {
			t.Fatalf("invalid output %s for %s", out, in)
		}
		var back sample
		if err := json.Unmarshal(out, &back); err != nil || back.Name != s.Name || back.Count != s.Count || back.Deleted != s.Deleted {
			t.Fatalf("%s read back as %+v, %v; want %+v", out, back, err, s)
		}
		for _, m := range rest.Unknown() {
			if got := Get(out, m.Key); got == nil {
				t.Fatalf("unknown member %q lost: %s", m.Key, out)
			}
		}
	})
}
