package forkcheck

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	const upstream = "package p\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {}\n"
	tests := map[string]struct {
		copied string
		err    string // a part of the error, "" for none
	}{
		"identical":               {copied: upstream},
		"line replaced in a hunk": {copied: "package p\n\nfunc a() {\n\t// kubectl-chart: begin: why\n\treturn 2\n\t// kubectl-chart: end\n}\n\nfunc b() {}\n"},
		"lines removed in a hunk": {copied: "package p\n\n// kubectl-chart: begin: a is not needed\n// kubectl-chart: end\n\nfunc b() {}\n"},
		"hunk first and last":     {copied: "// kubectl-chart: begin\npackage q\n// kubectl-chart: end\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {}\n// kubectl-chart: begin\n// kubectl-chart: end\n"},
		"hunks meeting":           {copied: "package p\n// kubectl-chart: begin\n// kubectl-chart: end\n// kubectl-chart: begin\nx\n// kubectl-chart: end\n\nfunc b() {}\n"},
		"line changed unmarked":   {copied: "package p\n\nfunc a() {\n\treturn 2\n}\n\nfunc b() {}\n", err: `line 4: "\treturn 2" differs`},
		"line added unmarked":     {copied: "package p\n\nfunc a() {\n\tx()\n\treturn 1\n}\n\nfunc b() {}\n", err: `line 4: "\tx()"`},
		"line removed unmarked":   {copied: "package p\n\nfunc a() {\n}\n\nfunc b() {}\n", err: `line 4: "}"`},
		"change after a hunk":     {copied: "package p\n// kubectl-chart: begin\n// kubectl-chart: end\n\nfunc a() {\n\treturn 1\n}\n\nfunc c() {}\n", err: `line 9: "func c() {}"`},
		"first line unmarked":     {copied: "package q\n// kubectl-chart: begin\n// kubectl-chart: end\n\nfunc b() {}\n", err: `line 1: "package q"`},
		"tail removed unmarked":   {copied: "package p\n// kubectl-chart: begin\n// kubectl-chart: end\n\nfunc a() {\n\treturn 1\n}\n", err: "not where upstream has them"},
		"runs out of order":       {copied: "package p\n// kubectl-chart: begin\n// kubectl-chart: end\nfunc b() {}\n// kubectl-chart: begin\n// kubectl-chart: end\nfunc a() {\n", err: "line 7"},
		"hunk never ends":         {copied: "package p\n// kubectl-chart: begin\n", err: "line 2: hunk never ends"},
		"end without begin":       {copied: "package p\n// kubectl-chart: end\n", err: "line 2: hunk ends where none began"},
		"hunk in a hunk":          {copied: "// kubectl-chart: begin\n// kubectl-chart: begin\n", err: "line 2: hunk begins inside the hunk of line 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Compare(tc.copied, upstream)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Compare: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Compare: %v, want an error with %q", err, tc.err)
			}
		})
	}
}
