package strvals

import "testing"

func stringCases() map[string]parseCase {
	return map[string]parseCase{
		"long int":     {in: "long_int_string=1234567890", want: obj{"long_int_string": "1234567890"}},
		"boolean":      {in: "boolean=true", want: obj{"boolean": "true"}},
		"null":         {in: "is_null=null", want: obj{"is_null": "null"}},
		"zero":         {in: "zero=0", want: obj{"zero": "0"}},
		"list":         {in: "a={1,true,}", want: obj{"a": arr{"1", "true", ""}}},
		"index":        {in: "a[1]=2", want: obj{"a": arr{nil, "2"}}},
		"escapes kept": {in: `a=x\,y`, want: obj{"a": "x,y"}},
		"bare key":     {in: "a", wantErr: `key "a" has no value`},
	}
}

func TestParseIntoString(t *testing.T) {
	runParseCases(t, stringCases(), ParseIntoString)

	runIntoCases(t, map[string]intoCase{
		"overwrite and add": {
			dest: obj{"outer": obj{"inner1": "overwrite", "inner2": "value2"}},
			in:   []string{"outer.inner1=1,outer.inner3=3"},
			want: obj{"outer": obj{"inner1": "1", "inner2": "value2", "inner3": "3"}},
		},
	}, ParseIntoString)
}

func TestParseString(t *testing.T) {
	got, err := ParseString("a=1")
	checkResult(t, "a=1", got, err, obj{"a": "1"}, "")
}
