package strvals

import (
	"errors"
	"reflect"
	"testing"
)

// fakeFiles is an in-memory FileReader that records the paths it was asked for.
type fakeFiles struct {
	content map[string]string
	asked   []string
}

func (f *fakeFiles) read(rs []rune) (any, error) {
	path := string(rs)
	f.asked = append(f.asked, path)
	c, ok := f.content[path]
	if !ok {
		return nil, errors.New("open " + path + ": no such file or directory")
	}
	return c, nil
}

func TestParseIntoFile(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    obj
		asked   []string
		wantErr string
	}{
		"single":          {in: "name1=path1", want: obj{"name1": "value1"}, asked: []string{"path1"}},
		"content untyped": {in: "n=num", want: obj{"n": "42"}, asked: []string{"num"}},
		"nested and index": {
			in:    "a.b=path1,c[1]=path2",
			want:  obj{"a": obj{"b": "value1"}, "c": arr{nil, "value2"}},
			asked: []string{"path1", "path2"},
		},
		"one file per list element": {in: "l={path1,path2}", want: obj{"l": arr{"value1", "value2"}}, asked: []string{"path1", "path2"}},
		"empty at end not read":     {in: "a=", want: obj{"a": ""}},
		"empty before comma read":   {in: "a=,b=path1", asked: []string{""}, wantErr: "open : no such file or directory"},
		"escaped path":              {in: `a=dir\,x`, want: obj{"a": "comma"}, asked: []string{"dir,x"}},
		"missing file":              {in: "a=nope", asked: []string{"nope"}, wantErr: "open nope: no such file or directory"},
		"missing in list":           {in: "a={path1,nope}", asked: []string{"path1", "nope"}, wantErr: "open nope: no such file or directory"},
		"missing in index":          {in: "a[0]=nope", asked: []string{"nope"}, wantErr: "open nope: no such file or directory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			files := &fakeFiles{content: map[string]string{"path1": "value1", "path2": "value2", "num": "42", "dir,x": "comma"}}
			got := obj{}
			err := ParseIntoFile(tc.in, got, files.read)
			checkResult(t, tc.in, got, err, tc.want, tc.wantErr)
			if !reflect.DeepEqual(files.asked, tc.asked) {
				t.Fatalf("reader asked for %q, want %q", files.asked, tc.asked)
			}
		})
	}
}

func TestParseIntoFileNilReader(t *testing.T) {
	if err := ParseIntoFile("a=b", obj{}, nil); err == nil {
		t.Fatal("want an error for a nil reader")
	}
}
