package loader

import (
	"testing"
)

func TestParseIgnore(t *testing.T) {
	tests := map[string]struct {
		rules   string
		globs   []string
		wantErr string
	}{
		"comments, indented comments and blank lines": {
			rules: "#ignore\n\n\t#ignore\nfoo\nbar/*\nbaz/bar/foo.txt\n\none/more\n",
			globs: []string{"foo", "bar/*", "baz/bar/foo.txt", "one/more"},
		},
		"negation, rooted and directory markers are stripped": {
			rules: "!keep\n/rooted\ndir/\n!/both/\n",
			globs: []string{"keep", "rooted", "dir", "both"},
		},
		"CRLF line endings": {
			rules: "a.txt\r\nb.txt\r\n",
			globs: []string{"a.txt", "b.txt"},
		},
		"double star": {
			rules:   "foo/**/bar",
			wantErr: ".helmignore line 1: double-star (**) syntax is not supported",
		},
		"unterminated class": {
			rules:   "ok\n[z-",
			wantErr: ".helmignore line 2: syntax error in pattern",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := parseIgnore([]byte(tc.rules))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("parseIgnore error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var globs []string
			for _, p := range r.patterns {
				globs = append(globs, p.glob)
			}
			if len(globs) != len(tc.globs) {
				t.Fatalf("patterns = %q, want %q", globs, tc.globs)
			}
			for i := range globs {
				if globs[i] != tc.globs[i] {
					t.Errorf("pattern %d = %q, want %q", i, globs[i], tc.globs[i])
				}
			}
		})
	}
}

func TestIgnoreRules(t *testing.T) {
	// Given one pattern, whether a path (a directory or not) is ignored.
	tests := map[string]struct {
		pattern string
		path    string
		isDir   bool
		ignored bool
	}{
		"literal":                              {`helm.txt`, "helm.txt", false, true},
		"suffix glob":                          {`helm.*`, "helm.txt", false, true},
		"suffix glob, other name":              {`helm.*`, "rudder.txt", false, false},
		"extension glob":                       {`*.txt`, "tiller.txt", false, true},
		"extension glob below the root":        {`*.txt`, "cargo/a.txt", false, true},
		"path glob":                            {`cargo/*.txt`, "cargo/a.txt", false, true},
		"path glob with two stars":             {`cargo/*.*`, "cargo/a.txt", false, true},
		"path glob, other directory":           {`cargo/*.txt`, "mast/a.txt", false, false},
		"character class and single character": {`ru[c-e]?er.txt`, "rudder.txt", false, true},
		"default template dotfile rule":        {`templates/.?*`, "templates/.dotfile", false, true},
		"default rule, deeper dotfile":         {`templates/.?*`, "templates/sub/.dotfile", false, false},
		"dot is never ignored":                 {`.*`, ".", true, false},
		"dot slash is never ignored":           {`.*`, "./", true, false},
		"dotfile":                              {`.*`, ".joonix", false, true},
		"dot glob, plain file":                 {`.*`, "helm.txt", false, false},
		"empty path is never ignored":          {`.*`, "", false, false},
		"directory rule":                       {`cargo/`, "cargo", true, true},
		"directory rule, trailing slash":       {`cargo/`, "cargo/", true, true},
		"directory rule, other directory":      {`cargo/`, "mast/", true, false},
		"directory rule, a file":               {`helm.txt/`, "helm.txt", false, false},
		"directory rule, nested directory":     {`cargo/`, "ship/cargo", true, true},
		"negation, matching":                   {`!helm.txt`, "helm.txt", false, false},
		"negation, not matching":               {`!helm.txt`, "tiller.txt", false, true},
		"negated glob, directory":              {`!*.txt`, "cargo", true, true},
		"negated directory rule, directory":    {`!cargo/`, "mast/", true, true},
		"negated directory rule, file":         {`!cargo/`, "cargo", false, true},
		"negated directory rule, same dir":     {`!cargo/`, "cargo", true, false},
		"rooted":                               {`/a.txt`, "a.txt", false, true},
		"rooted, below the root":               {`/a.txt`, "cargo/a.txt", false, false},
		"rooted path":                          {`/cargo/a.txt`, "cargo/a.txt", false, true},
		"rooted glob":                          {`/*.txt`, "a.txt", false, true},
		"rooted glob, below the root":          {`/*.txt`, "cargo/a.txt", false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := parseIgnore([]byte(tc.pattern))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.ignored(tc.path, tc.isDir); got != tc.ignored {
				t.Errorf("pattern %q, path %q (dir %v): ignored = %v, want %v", tc.pattern, tc.path, tc.isDir, got, tc.ignored)
			}
		})
	}
}

func TestIgnoreRulesInOrder(t *testing.T) {
	// Rules are read in order and the first that says "ignore" wins; a later
	// negation cannot bring a path back.
	r, err := parseIgnore([]byte("*.txt\n!keep.txt\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path    string
		ignored bool
	}{
		"matched by the glob":             {"keep.txt", true},
		"other text file":                 {"other.txt", true},
		"not matched by the negation":     {"Chart.yaml", true},
		"the root is never ignored":       {".", false},
		"the empty path is never ignored": {"", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := r.ignored(tc.path, false); got != tc.ignored {
				t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.ignored)
			}
		})
	}
}

func TestDefaultIgnoreRules(t *testing.T) {
	r := &ignoreRules{}
	for _, rule := range defaultIgnoreRules() {
		if err := r.add(rule); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.patterns) != 1 {
		t.Fatalf("default patterns = %d, want 1", len(r.patterns))
	}
	tests := map[string]struct {
		path    string
		isDir   bool
		ignored bool
	}{
		"dotfile in templates":       {"templates/.hidden.yaml", false, true},
		"dot directory in templates": {"templates/.git", true, true},
		"single dot name":            {"templates/.", true, false},
		"template":                   {"templates/a.yaml", false, false},
		"dotfile elsewhere":          {".helmignore", false, false},
		"dotfile deeper":             {"templates/sub/.x", false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := r.ignored(tc.path, tc.isDir); got != tc.ignored {
				t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.ignored)
			}
		})
	}
}
