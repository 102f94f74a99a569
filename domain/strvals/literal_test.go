package strvals

import "testing"

func literalCases() map[string]parseCase {
	return map[string]parseCase{
		"bare key":             {in: "name", wantErr: `key "name" has no value`},
		"empty":                {in: "name=", want: obj{"name": ""}},
		"value":                {in: "name=value", want: obj{"name": "value"}},
		"int stays string":     {in: "long_int_string=1234567890", want: obj{"long_int_string": "1234567890"}},
		"bool stays string":    {in: "boolean=true", want: obj{"boolean": "true"}},
		"null stays string":    {in: "is_null=null", want: obj{"is_null": "null"}},
		"zero stays string":    {in: "zero=0", want: obj{"zero": "0"}},
		"comma is value":       {in: "name1=null,name2=value2", want: obj{"name1": "null,name2=value2"}},
		"commas":               {in: "name1=value,,,tail", want: obj{"name1": "value,,,tail"}},
		"leading zeros":        {in: "leading_zeros=00009", want: obj{"leading_zeros": "00009"}},
		"spaces":               {in: "name=one two three", want: obj{"name": "one two three"}},
		"nested":               {in: "outer.inner=value", want: obj{"outer": obj{"inner": "value"}}},
		"nested 3":             {in: "outer.middle.inner=value", want: obj{"outer": obj{"middle": obj{"inner": "value"}}}},
		"bare nested":          {in: "name1.name2", wantErr: `key "name2" has no value`},
		"nested empty":         {in: "name1.name2=", want: obj{"name1": obj{"name2": ""}}},
		"empty nested key":     {in: "name1.=name2", wantErr: `key map "name1" has no value`},
		"comma in key":         {in: "name1.,name2", wantErr: `key ",name2" has no value`},
		"braces are text":      {in: "name1={value1,value2}", want: obj{"name1": "{value1,value2}"}},
		"index":                {in: "list[0]=foo", want: obj{"list": arr{"foo"}}},
		"index map":            {in: "list[0].foo=bar", want: obj{"list": arr{obj{"foo": "bar"}}}},
		"negative index":       {in: "list[-30].hello=world", wantErr: "negative -30 index not allowed"},
		"padding":              {in: "list[3]=bar", want: obj{"list": arr{nil, nil, nil, "bar"}}},
		"data after index":     {in: "illegal[0]name.foo=bar", wantErr: `unexpected data at end of array index: ['n' 'a' 'm' 'e']`},
		"index without value":  {in: "noval[0]", want: obj{"noval": arr{}}},
		"index empty value":    {in: "noval[0]=", want: obj{"noval": arr{""}}},
		"nested index":         {in: "nested[0][0]=1", want: obj{"nested": arr{arr{"1"}}}},
		"nested index pad":     {in: "nested[1][1]=1", want: obj{"nested": arr{nil, arr{nil, "1"}}}},
		"list in map":          {in: "name1.name2[0].foo=bar", want: obj{"name1": obj{"name2": arr{obj{"foo": "bar"}}}}},
		"list in map padded":   {in: "name1.name2[1].foo=bar", want: obj{"name1": obj{"name2": arr{nil, obj{"foo": "bar"}}}}},
		"index value verbatim": {in: "a[0]=x,y=z", want: obj{"a": arr{"x,y=z"}}},
		"no escapes in key":    {in: `a\.b=1`, want: obj{`a\`: obj{"b": "1"}}},
		"brackets":             {in: "]={}].", want: obj{"]": "{}]."}},
		"above max index":      {in: "a[65537]=x", wantErr: "index of 65537 is greater than maximum supported index of 65536"},

		// Characters that are special to --set but not here.
		"comma":              {in: "name=val,val", want: obj{"name": "val,val"}},
		"dot":                {in: "name=val.val", want: obj{"name": "val.val"}},
		"equals":             {in: "name=val=val", want: obj{"name": "val=val"}},
		"dollar":             {in: "name=val$val", want: obj{"name": "val$val"}},
		"open paren":         {in: "name=(value", want: obj{"name": "(value"}},
		"close paren":        {in: "name=value)", want: obj{"name": "value)"}},
		"parens":             {in: "name=(value)", want: obj{"name": "(value)"}},
		"open brace":         {in: "name={value", want: obj{"name": "{value"}},
		"close brace":        {in: "name=value}", want: obj{"name": "value}"}},
		"braces":             {in: "name={value}", want: obj{"name": "{value}"}},
		"brace list":         {in: "name={value1,value2}", want: obj{"name": "{value1,value2}"}},
		"backslash":          {in: `name=val\val`, want: obj{"name": `val\val`}},
		"double backslash":   {in: `name=val\\val`, want: obj{"name": `val\\val`}},
		"triple backslash":   {in: `name=val\\\val`, want: obj{"name": `val\\\val`}},
		"mixed punctuation":  {in: `name={val,.?*v\0a!l)some`, want: obj{"name": `{val,.?*v\0a!l)some`}},
		"random punctuation": {in: `name=em%GT)tqUDqz,i-\h+Mbqs-!:.m\\rE=mkbM#rR}@{-k@`, want: obj{"name": `em%GT)tqUDqz,i-\h+Mbqs-!:.m\\rE=mkbM#rR}@{-k@`}},
		"invalid utf8":       {in: "a=x\xffy", want: obj{"a": "x\uFFFDy"}},
	}
}

func TestParseLiteral(t *testing.T) {
	runParseCases(t, literalCases(), ParseLiteral)

	runIntoCases(t, map[string]intoCase{
		"rest of line is one value": {
			dest: obj{"outer": obj{"inner1": "overwrite", "inner2": "value2"}},
			in:   []string{"outer.inner1=value1,outer.inner3=value3,outer.inner4=4"},
			want: obj{"outer": obj{"inner1": "value1,outer.inner3=value3,outer.inner4=4", "inner2": "value2"}},
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
		"map over scalar": {
			dest:    obj{"a": "x"},
			in:      []string{"a.b=1"},
			wantErr: "unable to parse key: interface conversion: interface {} is string, not map[string]interface {}",
		},
	}, ParseLiteral)
}
