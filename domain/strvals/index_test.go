package strvals

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestSetIndex(t *testing.T) {
	cases := map[string]struct {
		list    arr
		index   int
		want    arr
		wantErr string
	}{
		"append":   {list: arr{0, 1}, index: 2, want: arr{0, 1, 2}},
		"replace":  {list: arr{0, 1}, index: 1, want: arr{0, 2}},
		"middle":   {list: arr{0, 1, 2, 3, 4, 5}, index: 3, want: arr{0, 1, 2, 4, 4, 5}},
		"pad":      {list: nil, index: 2, want: arr{nil, nil, 2}},
		"negative": {list: arr{0, 1}, index: -1, want: arr{0, 1}, wantErr: "negative -1 index not allowed"},
		"too large": {
			list: arr{0, 1}, index: MaxIndex + 1, want: arr{0, 1},
			wantErr: "index of 65537 is greater than maximum supported index of 65536",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			val := tc.index
			if len(tc.want) > 0 && tc.index >= 0 && tc.index < len(tc.want) {
				val = tc.want[tc.index].(int)
			}
			got, err := (&parser{}).setIndex(tc.list, tc.index, val)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestListBudget(t *testing.T) {
	budget := WithBudget(NewBudget(3 * (MaxIndex + 1)))
	dest := map[string]any{}
	for i := range 3 {
		if err := ParseInto(fmt.Sprintf("a%d[%d]=x", i, MaxIndex), dest, budget); err != nil {
			t.Fatalf("flag %d: %v", i, err)
		}
	}
	// Reusing the items already grown costs nothing.
	if err := ParseInto(fmt.Sprintf("a0[%d]=y,a1[5]=z", MaxIndex-1), dest, budget); err != nil {
		t.Fatal(err)
	}
	err := ParseInto("a3[0]=x", dest, budget)
	const want = `key "a3": lists would hold more than the maximum supported total of 196611 items`
	if err == nil || err.Error() != want || !errors.Is(err, ErrListBudget) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
