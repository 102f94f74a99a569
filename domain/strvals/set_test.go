package strvals

import (
	"fmt"
	"testing"
)

// setCases are --set lines into a fresh map: Helm's TestParseSet plus the
// quirks users rely on.
func setCases() map[string]parseCase {
	return map[string]parseCase{
		// Scalars and type inference.
		"null false true":        {in: "name1=null,f=false,t=true", want: obj{"name1": nil, "f": false, "t": true}},
		"single":                 {in: "name1=value1", want: obj{"name1": "value1"}},
		"two":                    {in: "name1=value1,name2=value2", want: obj{"name1": "value1", "name2": "value2"}},
		"trailing comma":         {in: "name1=value1,name2=value2,", want: obj{"name1": "value1", "name2": "value2"}},
		"repeated commas":        {in: "name1=value1,,,,name2=value2,", wantErr: `key "" has no value (cannot end with ,)`},
		"empty value then more":  {in: "name1=,name2=value2", want: obj{"name1": "", "name2": "value2"}},
		"empty value at end":     {in: "name=", want: obj{"name": ""}},
		"leading zeros":          {in: "leading_zeros=00009", want: obj{"leading_zeros": "00009"}},
		"zero":                   {in: "zero_int=0", want: obj{"zero_int": int64(0)}},
		"long int":               {in: "long_int=1234567890", want: obj{"long_int": int64(1234567890)}},
		"boolean":                {in: "boolean=true", want: obj{"boolean": true}},
		"null":                   {in: "is_null=null", want: obj{"is_null": nil}},
		"float stays string":     {in: "f=1.5", want: obj{"f": "1.5"}},
		"last key wins":          {in: "a=1,a=2", want: obj{"a": int64(2)}},
		"spaces kept":            {in: "name1=one two three,name2=three two one", want: obj{"name1": "one two three", "name2": "three two one"}},
		"equals inside value":    {in: "a=b=c", want: obj{"a": "b=c"}},
		"escaped commas":         {in: `name1=one\,two,name2=three\,four`, want: obj{"name1": "one,two", "name2": "three,four"}},
		"escaped equals":         {in: `name1=one\=two,name2=three\=four`, want: obj{"name1": "one=two", "name2": "three=four"}},
		"escaped dot in key":     {in: `a\.b=1`, want: obj{"a.b": int64(1)}},
		"escaped backslash":      {in: `a=x\\y`, want: obj{"a": `x\y`}},
		"trailing backslash":     {in: `a=b\`, want: obj{"a": "b"}},
		"escaped brace":          {in: `a=\{x}`, want: obj{"a": "{x}"}},
		"empty key dropped":      {in: "=x,b=1", want: obj{"b": int64(1)}},
		"empty head key dropped": {in: ".a=1", want: obj{}},
		"invalid utf8":           {in: "\xff=\xfe", want: obj{"\uFFFD": "\uFFFD"}},

		// Keys without values.
		"comma after key":         {in: "name1,name2=", wantErr: `key "name1" has no value (cannot end with ,)`},
		"comma after key 2":       {in: "name1,name2=value2", wantErr: `key "name1" has no value (cannot end with ,)`},
		"comma after key 3":       {in: `name1,name2=value2\`, wantErr: `key "name1" has no value (cannot end with ,)`},
		"two bare keys":           {in: "name1,name2", wantErr: `key "name1" has no value (cannot end with ,)`},
		"bare key":                {in: "name", wantErr: `key "name" has no value`},
		"bare nested key":         {in: "name1.name2", wantErr: `key "name2" has no value`},
		"bare nested keys":        {in: "name1.name2,name1.name3", wantErr: `key "name2" has no value (cannot end with ,)`},
		"nested empty value":      {in: "name1.name2=", want: obj{"name1": obj{"name2": ""}}},
		"empty nested key":        {in: "name1.=name2", wantErr: `key map "name1" has no value`},
		"empty nested key comma":  {in: "name1.,name2", wantErr: `key "" has no value (cannot end with ,)`},
		"empty nested key at end": {in: "a.=", want: obj{}},
		"dot at end":              {in: "a.", want: obj{}},

		// Maps.
		"nested":              {in: "outer.inner=value", want: obj{"outer": obj{"inner": "value"}}},
		"nested 3":            {in: "outer.middle.inner=value", want: obj{"outer": obj{"middle": obj{"inner": "value"}}}},
		"siblings":            {in: "outer.inner1=value,outer.inner2=value2", want: obj{"outer": obj{"inner1": "value", "inner2": "value2"}}},
		"sibling subtree":     {in: "outer.inner1=value,outer.middle.inner=value", want: obj{"outer": obj{"inner1": "value", "middle": obj{"inner": "value"}}}},
		"scalar replaces map": {in: "a.b=1,a=2", want: obj{"a": int64(2)}},
		"map over scalar": {
			in:      "a=1,a.b=2",
			wantErr: "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}",
		},
		"map over null": {
			in:      "a=null,a.b=1",
			wantErr: "unable to parse key: interface conversion: interface {} is nil, not map[string]interface {}",
		},
		"map over list": {
			in:      "]={}].",
			wantErr: "unable to parse key: interface conversion: interface {} is []interface {}, not map[string]interface {}",
		},

		// Brace lists.
		"list":              {in: "name1={value1,value2}", want: obj{"name1": arr{"value1", "value2"}}},
		"two lists":         {in: "name1={value1,value2},name2={value1,value2}", want: obj{"name1": arr{"value1", "value2"}, "name2": arr{"value1", "value2"}}},
		"typed list":        {in: "name1={1021,902}", want: obj{"name1": arr{int64(1021), int64(902)}}},
		"mixed list":        {in: "a={1,true,null,0,01}", want: obj{"a": arr{int64(1), true, nil, int64(0), "01"}}},
		"nested key list":   {in: "name1.name2={value1,value2}", want: obj{"name1": obj{"name2": arr{"value1", "value2"}}}},
		"unterminated list": {in: "name1={1021,902", wantErr: "list must terminate with '}'"},
		"empty braces":      {in: "a={}", want: obj{"a": arr{""}}},
		"text after brace":  {in: "a={b}c=1", want: obj{"a": arr{"b"}, "c": int64(1)}},
		"escaped in list":   {in: `a={x\,y,z\}}`, want: obj{"a": arr{"x,y", "z}"}}},

		// Indexes.
		"index":               {in: "list[0]=foo", want: obj{"list": arr{"foo"}}},
		"index map":           {in: "list[0].foo=bar", want: obj{"list": arr{obj{"foo": "bar"}}}},
		"index map merge":     {in: "list[0].foo=bar,list[0].hello=world", want: obj{"list": arr{obj{"foo": "bar", "hello": "world"}}}},
		"negative index map":  {in: "list[0].foo=bar,list[-30].hello=world", wantErr: "negative -30 index not allowed"},
		"two indexes":         {in: "list[0]=foo,list[1]=bar", want: obj{"list": arr{"foo", "bar"}}},
		"two indexes comma":   {in: "list[0]=foo,list[1]=bar,", want: obj{"list": arr{"foo", "bar"}}},
		"padding":             {in: "list[0]=foo,list[3]=bar", want: obj{"list": arr{"foo", nil, nil, "bar"}}},
		"negative index":      {in: "list[0]=foo,list[-20]=bar", wantErr: "negative -20 index not allowed"},
		"data after index":    {in: "illegal[0]name.foo=bar", wantErr: `unexpected data at end of array index: ['n' 'a' 'm' 'e']`},
		"index without value": {in: "noval[0]", want: obj{"noval": arr{}}},
		"index empty value":   {in: "noval[0]=", want: obj{"noval": arr{""}}},
		"nested index":        {in: "nested[0][0]=1", want: obj{"nested": arr{arr{int64(1)}}}},
		"nested index pad":    {in: "nested[1][1]=1", want: obj{"nested": arr{nil, arr{nil, int64(1)}}}},
		"index list value":    {in: "a[1]={x,y}", want: obj{"a": arr{nil, arr{"x", "y"}}}},
		"list in map": {
			in:   "name1.name2[0].foo=bar,name1.name2[1].foo=bar",
			want: obj{"name1": obj{"name2": arr{obj{"foo": "bar"}, obj{"foo": "bar"}}}},
		},
		"list in map reversed": {
			in:   "name1.name2[1].foo=bar,name1.name2[0].foo=bar",
			want: obj{"name1": obj{"name2": arr{obj{"foo": "bar"}, obj{"foo": "bar"}}}},
		},
		"list in map padded":   {in: "name1.name2[1].foo=bar", want: obj{"name1": obj{"name2": arr{nil, obj{"foo": "bar"}}}}},
		"max index":            {in: fmt.Sprintf("a[%d]=x", MaxIndex), want: obj{"a": padded(MaxIndex, "x")}},
		"above max index":      {in: fmt.Sprintf("a[%d]=x", MaxIndex+1), wantErr: "index of 65537 is greater than maximum supported index of 65536"},
		"above max nested":     {in: "a[0][65537]=x", wantErr: "index of 65537 is greater than maximum supported index of 65536"},
		"above max map item":   {in: "a[65537].b=x", wantErr: "index of 65537 is greater than maximum supported index of 65536"},
		"index not a number":   {in: "a[x]=1", wantErr: `error parsing index: strconv.Atoi: parsing "x": invalid syntax`},
		"index empty":          {in: "a[]=1", wantErr: `error parsing index: strconv.Atoi: parsing "": invalid syntax`},
		"index out of range":   {in: "a[99999999999999999999]=1", wantErr: `error parsing index: strconv.Atoi: parsing "99999999999999999999": value out of range`},
		"index unterminated":   {in: "a[0", wantErr: "error parsing index: EOF"},
		"index leading zeros":  {in: "a[01]=x", want: obj{"a": arr{nil, "x"}}},
		"map item empty value": {in: "a[0].b=", want: obj{"a": arr{}}},
		"map item dot at end":  {in: "a[0].", want: obj{"a": arr{}}},
		"map item bare key":    {in: "a[0].b", wantErr: `key "b" has no value`},
		"scalar replaces list": {in: "a[0]=1,a=2", want: obj{"a": int64(2)}},
		"map replaces item":    {in: "a[0]=1,a[0].b=2", want: obj{"a": arr{obj{"b": int64(2)}}}},
		"list over scalar": {
			in:      "a=1,a[0]=2",
			wantErr: "unable to parse key: interface conversion: interface {} is int64, not []interface {}",
		},
		"list over item": {
			in:      "a[0]=1,a[0][0]=2",
			wantErr: "unable to parse key: interface conversion: interface {} is int64, not []interface {}",
		},
		"list over null item": {in: "a[0]=null,a[0][1]=2", want: obj{"a": arr{arr{nil, int64(2)}}}},
		"depth not counted in lists": {
			in:   "a[0].b[0].c=1",
			want: obj{"a": arr{obj{"b": arr{obj{"c": int64(1)}}}}},
		},
	}
}

func padded(i int, v any) arr {
	l := make(arr, i+1)
	l[i] = v
	return l
}

func TestParseInto(t *testing.T) {
	runParseCases(t, setCases(), ParseInto)
}

func TestParse(t *testing.T) {
	got, err := Parse("a.b=1,c={x}")
	checkResult(t, "a.b=1,c={x}", got, err, obj{"a": obj{"b": int64(1)}, "c": arr{"x"}}, "")

	got, err = Parse("a,b")
	if err == nil || got != nil {
		t.Fatalf("Parse on bad input: got %#v, %v; want nil map and an error", got, err)
	}
}

func TestParseNestedLevels(t *testing.T) {
	cases := map[string]parseCase{
		"three":        {in: "outer.middle.inner=value", want: obj{"outer": obj{"middle": obj{"inner": "value"}}}},
		"at the limit": {in: nestedKey(MaxNestedNameLevel + 1), want: nestedWant(MaxNestedNameLevel + 1)},
		"too deep": {
			in:      nestedKey(MaxNestedNameLevel + 2),
			wantErr: "value name nested level is greater than maximum supported nested level of 30",
		},
	}
	runParseCases(t, cases, ParseInto)
	runParseCases(t, cases, ParseLiteral)
}

func TestParseIntoMerges(t *testing.T) {
	cases := map[string]intoCase{
		"overwrite and add": {
			dest: obj{"outer": obj{"inner1": "overwrite", "inner2": "value2"}},
			in:   []string{"outer.inner1=value1,outer.inner3=value3,outer.inner4=4"},
			want: obj{"outer": obj{"inner1": "value1", "inner2": "value2", "inner3": "value3", "inner4": int64(4)}},
		},
		"same nested item": {
			dest: obj{},
			in:   []string{"listOuter[0][0].type=listValue", "listOuter[0][0].status=alive"},
			want: obj{"listOuter": arr{arr{obj{"type": "listValue", "status": "alive"}}}},
		},
		"sibling nested items": {
			dest: obj{},
			in:   []string{"listOuter[0][0].type=listValue", "listOuter[1][0].status=alive"},
			want: obj{"listOuter": arr{arr{obj{"type": "listValue"}}, arr{obj{"status": "alive"}}}},
		},
		"existing deep lists": {
			dest: obj{"listOuter": arr{arr{arr{obj{"exited": "old"}}}}},
			in:   []string{"listOuter[0][1][0].type=listValue", "listOuter[0][0][1].status=alive"},
			want: obj{"listOuter": arr{arr{
				arr{obj{"exited": "old"}, obj{"status": "alive"}},
				arr{obj{"type": "listValue"}},
			}}},
		},
		"existing item keeps map on empty value": {
			dest: obj{"a": arr{obj{"x": int64(1)}}},
			in:   []string{"a[0].b="},
			want: obj{"a": arr{obj{"x": int64(1), "b": ""}}},
		},
		"float from values file blocks map": {
			dest:    obj{"a": 2.5},
			in:      []string{"a.b=1"},
			wantErr: "unable to parse key: interface conversion: interface {} is float64, not map[string]interface {}",
		},
		"nil dest": {
			in:      []string{"a=1"},
			wantErr: "unable to parse key: assignment to entry in nil map",
		},
		"nil dest empty line": {in: []string{""}},
	}
	runIntoCases(t, cases, ParseInto)
}
