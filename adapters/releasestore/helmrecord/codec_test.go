package helmrecord

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	want := porttest.Release("prod", "web", 3, release.StatusDeployed)
	want.Labels = nil
	enc, err := Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !bytes.HasPrefix(raw, gzipMagic) {
		t.Fatalf("record is not base64 of gzip: %v", err)
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	porttest.AssertSame(t, got, want)
}

func TestDecodeErrors(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := map[string]struct {
		data, wantErr string
	}{
		"bad base64":         {"@@@", "decode base64"},
		"truncated gzip":     {gz(`{"name":"web"}`)[:20], "decompress"},
		"bad json":           {gz(`{"name":`), "decode JSON"},
		"json of wrong type": {gz(`{"name":"web","version":"three"}`), "decode JSON"},
		"no name":            {gz(`{"version":1}`), "no release name"},
		"empty":              {"", "decode JSON"},
		"plain json":         {b64(`{"name":"web","version":2}`), ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := Decode(tc.data)
			sum, sumErr := DecodeSummary(tc.data)
			if tc.wantErr == "" {
				if err != nil || r.Name != "web" || r.Version != 2 {
					t.Fatalf("Decode = %+v, %v", r, err)
				}
				if sumErr != nil || sum.Name != "web" || sum.Revision != 2 {
					t.Fatalf("DecodeSummary = %+v, %v", sum, sumErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Decode error = %v, want %q", err, tc.wantErr)
			}
			if sumErr == nil || !strings.Contains(sumErr.Error(), tc.wantErr) {
				t.Fatalf("DecodeSummary error = %v, want %q", sumErr, tc.wantErr)
			}
		})
	}
}

func TestDecodeSummaryIsDecodesSummary(t *testing.T) {
	records := map[string]string{}
	for name, data := range helm4Records(t) {
		records["helm 4 "+name] = data
	}
	for _, st := range []release.Status{release.StatusDeployed, release.StatusFailed} {
		enc, err := Encode(porttest.Release("prod", "web", 3, st))
		if err != nil {
			t.Fatal(err)
		}
		records["ours "+string(st)] = enc
	}
	for name, data := range records {
		t.Run(name, func(t *testing.T) {
			r, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			want := r.Summarize()
			got, err := DecodeSummary(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DecodeSummary = %+v\nDecode(...).Summarize() = %+v", got, want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	enc, err := Encode(porttest.Release("prod", "web", 1, release.StatusDeployed))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	f.Add(enc[:len(enc)/2])
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"name":"x","info":{"status":"deployed","deleted":""},"chart":{"metadata":{"name":"c"}}}`)))
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		r, err := Decode(data)
		if err == nil && r == nil {
			t.Fatal("nil release without error")
		}
		if err == nil {
			r.Summarize()
		}
	})
}

// FuzzSummaryJSON checks summaryJSON against encoding/json: it accepts only
// valid JSON, and unmarshalling what it keeps gives what unmarshalling the
// whole record does, errors included.
func FuzzSummaryJSON(f *testing.F) {
	for _, data := range helm4Records(f) {
		raw, err := recordJSON(data)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for _, s := range []string{
		`{"name":"x","info":{"status":"deployed"},"chart":{"metadata":{"name":"c","version":"1"},"templates":[{"a":1}]},"manifest":"a\nb\u00e9\"","version":3,"namespace":"ns"}`,
		`{"Name":"x","NAME":"y","chart":null,"Version":2.5e1,"namespaſe":"n"}`,
		`{"name":"x","chart":{"Metadata":{"name":"a"},"metadata":{"name":"b"}},"version":-0.5}`,
		`{"name":"x","chart":"c"}`,
		`{"name":"x","chart":{}, "info":[1,true,false,null,{}]}`,
		`{"na\u006de":"x"}`,
		`{"name":"x"} x`,
		`{"name":"x",}`,
		`{"name":01}`,
		`{"name":"a` + "\x01" + `"}`,
		`[1,2]`,
		`null`,
		` {"name" : "x" , "version" : 1e+2 } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		kept, ok := summaryJSON(raw)
		if ok && !json.Valid(raw) {
			t.Fatalf("summaryJSON accepted invalid JSON %q", raw)
		}
		if !ok {
			return
		}
		var whole, part summaryRecord
		errWhole, errPart := json.Unmarshal(raw, &whole), json.Unmarshal(kept, &part)
		if (errWhole == nil) != (errPart == nil) {
			t.Fatalf("unmarshal of %q: %v; of what summaryJSON kept (%q): %v", raw, errWhole, kept, errPart)
		}
		if errWhole == nil && !reflect.DeepEqual(whole, part) {
			t.Fatalf("unmarshal of %q = %+v; of what summaryJSON kept (%q) = %+v", raw, whole, kept, part)
		}
	})
}
