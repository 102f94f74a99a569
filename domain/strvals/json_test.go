package strvals

import "testing"

func jsonCases() map[string]parseCase {
	return map[string]parseCase{
		"number is float64":  {in: "a=3", want: obj{"a": float64(3)}},
		"string":             {in: `a="1"`, want: obj{"a": "1"}},
		"object":             {in: `a={"b":[1,"x",null]}`, want: obj{"a": obj{"b": arr{float64(1), "x", nil}}}},
		"array with commas":  {in: `a=[1,2],b=true`, want: obj{"a": arr{float64(1), float64(2)}, "b": true}},
		"empty is null":      {in: "a=", want: obj{"a": nil}},
		"blank is null":      {in: "a=  ,b=1", want: obj{"a": nil, "b": float64(1)}},
		"null":               {in: "a=null", want: obj{"a": nil}},
		"blank separates":    {in: "a=1 b=2", want: obj{"a": float64(1), "b": float64(2)}},
		"nested key":         {in: `a.b="x"`, want: obj{"a": obj{"b": "x"}}},
		"index":              {in: `a[1]={"b":2}`, want: obj{"a": arr{nil, obj{"b": float64(2)}}}},
		"index empty":        {in: "a[0]=", want: obj{"a": arr{nil}}},
		"escaped key":        {in: `a\.b=1`, want: obj{"a.b": float64(1)}},
		"bare word":          {in: "a=abc", wantErr: "invalid character 'a' looking for beginning of value"},
		"unterminated":       {in: `a="abc`, wantErr: "unexpected EOF"},
		"garbage after":      {in: `a={"x":1}]`, wantErr: `key "]" has no value`},
		"above max index":    {in: "a[65537]=1", wantErr: "index of 65537 is greater than maximum supported index of 65536"},
		"empty braces quirk": {in: "a={}", want: obj{"a": obj{}}},
	}
}

func TestParseJSON(t *testing.T) {
	runParseCases(t, jsonCases(), ParseJSON)

	runIntoCases(t, map[string]intoCase{
		"scalars replace a key": {
			dest: obj{"outer": obj{"inner1": "overwrite", "inner2": "value2"}},
			in:   []string{`outer.inner1="1",outer.inner3=3,outer.inner4=true,outer.inner5="true"`},
			want: obj{"outer": obj{"inner1": "1", "inner2": "value2", "inner3": float64(3), "inner4": true, "inner5": "true"}},
		},
		"objects and arrays replace": {
			dest: obj{"outer": obj{"inner1": obj{"x": "overwrite"}, "inner2": "value2", "inner3": arr{"overwrite"}}},
			in:   []string{`outer.inner1={"a":"1","b":2,"c":[1,2,3]},outer.inner3=["new value 1","new value 2"],outer.inner4={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner5=[{"A":"1","B":2,"C":[1,2,3]}]`},
			want: obj{"outer": obj{
				"inner1": obj{"a": "1", "b": float64(2), "c": arr{float64(1), float64(2), float64(3)}},
				"inner2": "value2",
				"inner3": arr{"new value 1", "new value 2"},
				"inner4": obj{"aa": "1", "bb": float64(2), "cc": arr{float64(1), float64(2), float64(3)}},
				"inner5": arr{obj{"A": "1", "B": float64(2), "C": arr{float64(1), float64(2), float64(3)}}},
			}},
		},
		"null and empty, then index into parsed json": {
			dest: obj{"outer": obj{"inner1": obj{"x": "overwrite"}, "inner2": "value2"}},
			in:   []string{`outer.inner1=,outer.inner3={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner3.cc[1]=null`},
			want: obj{"outer": obj{
				"inner1": nil,
				"inner2": "value2",
				"inner3": obj{"aa": "1", "bb": float64(2), "cc": arr{float64(1), nil, float64(3)}},
			}},
		},
		"syntax error": {
			dest:    obj{},
			in:      []string{`outer.inner1={"a":"1","b":2,"c":[1,2,3]},outer.inner3=["new value 1","new value 2"],outer.inner4={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner5={"A":"1","B":2,"C":[1,2,3]}]`},
			wantErr: `key "]" has no value`,
		},
	}, ParseJSON)
}
