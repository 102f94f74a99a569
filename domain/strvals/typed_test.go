package strvals

import (
	"reflect"
	"testing"
)

func TestInferValue(t *testing.T) {
	cases := map[string]struct {
		in   string
		want any
	}{
		"true":           {"true", true},
		"TRUE":           {"TRUE", true},
		"False":          {"False", false},
		"null":           {"null", nil},
		"NULL":           {"NULL", nil},
		"zero":           {"0", int64(0)},
		"negative zero":  {"-0", int64(0)},
		"int":            {"42", int64(42)},
		"negative":       {"-12", int64(-12)},
		"plus sign":      {"+5", int64(5)},
		"max int64":      {"9223372036854775807", int64(9223372036854775807)},
		"overflow":       {"9223372036854775808", "9223372036854775808"},
		"leading zero":   {"0123", "0123"},
		"zero zero":      {"00", "00"},
		"hex":            {"0x1F", "0x1F"},
		"float":          {"1.5", "1.5"},
		"exponent":       {"1e3", "1e3"},
		"underscore":     {"1_000", "1_000"},
		"space":          {" 1", " 1"},
		"empty":          {"", ""},
		"yes stays text": {"yes", "yes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := inferValue(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("inferValue(%q) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}
