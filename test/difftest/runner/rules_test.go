package runner

import "testing"

func TestCompareRules(t *testing.T) {
	tests := map[string]struct {
		helm, ours Outcome
		want       string
	}{
		"program name": {
			helm: Outcome{Exit: 1, ErrLine: "Error: found in Chart.yaml, but missing in charts/ directory: x; run 'helm dependency build'"},
			ours: Outcome{Exit: 1, ErrLine: "Error: found in Chart.yaml, but missing in charts/ directory: x; run 'kubectl chart dependency build'"},
			want: "[]",
		},
		"subchart load error order": {
			helm: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart b in c: cannot load values.yaml: x"},
			ours: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart a in c: cannot load values.yaml: x"},
			want: "[]",
		},
		"helm quotes bytes that are not UTF-8, we print them safe for a terminal": {
			helm: Outcome{Exit: 1, ErrLine: "Error: regexp: Compile(\"\\xb6\\x9e\"): error parsing regexp: invalid UTF-8: `\xb6\x9e`"},
			ours: Outcome{Exit: 1, ErrLine: "Error: regexp: Compile(\"\\xb6\\x9e\"): error parsing regexp: invalid UTF-8: `\ufffd\ufffd`"},
			want: "[]",
		},
		"helm and we both print raw bytes": {
			helm: Outcome{Exit: 1, ErrLine: "Error: invalid UTF-8: `\xb6`"},
			ours: Outcome{Exit: 1, ErrLine: "Error: invalid UTF-8: `\xb6`"},
			want: "[error]",
		},
		"other words differ": {
			helm: Outcome{Exit: 1, ErrLine: "Error: stat x: no such file or directory"},
			ours: Outcome{Exit: 1, ErrLine: "Error: path \"x\" not found"},
			want: "[error]",
		},
		"stdout and exit": {
			helm: Outcome{Stdout: "a\n"},
			ours: Outcome{Stdout: "b\n", Exit: 1},
			want: "[stdout exit]",
		},
		"crash": {
			helm: Outcome{},
			ours: Outcome{Crash: "runtime: goroutine stack exceeds 1000000000-byte limit"},
			want: "[crash]",
		},
		"helm hangs where the render budget stops us": {
			helm: Outcome{Hung: true, Exit: -1},
			ours: Outcome{Exit: 1, ErrLine: "Error: template: c/templates/t.yaml:1:3: render budget exceeded: until would build a value of 9223372036854775807 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
			want: "[]",
		},
		"helm is killed where the render budget stops our lint": {
			helm: Outcome{Exit: -1},
			ours: Outcome{Stdout: "==> Linting c\n[ERROR] templates/: template: c/templates/t.yaml:1:3: render budget exceeded: until would build a value of 9223372036854775807 bytes, more than 268435456 (raise it with --render-max-value-bytes)\n\n", Exit: 1, ErrLine: "Error: 1 chart(s) linted, 1 chart(s) failed"},
			want: "[]",
		},
		"helm is killed where the render budget stops us": {
			helm: Outcome{Exit: -1},
			ours: Outcome{Exit: 1, ErrLine: "Error: template: c/templates/t.yaml:1:3: render budget exceeded: until would build a value of 9223372036854775807 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
			want: "[]",
		},
		"helm runs out of memory where the render budget stops us": {
			helm: Outcome{Exit: 2, OutOfMemory: true, Crash: "runtime: out of memory: cannot allocate 79691776-byte block (179863552 in use)\nfatal error: out of memory\n"},
			ours: Outcome{Exit: 1, ErrLine: "Error: template: c/templates/t.yaml:1:3: render budget exceeded: until would build a value of 9223372036854775807 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
			want: "[]",
		},
		"helm runs out of memory, we fail otherwise": {
			helm: Outcome{Exit: 2, OutOfMemory: true},
			ours: Outcome{Exit: 1, ErrLine: "Error: x"},
			want: "[exit error]",
		},
		"helm hangs, we fail otherwise": {
			helm: Outcome{Hung: true, Exit: -1},
			ours: Outcome{Exit: 1, ErrLine: "Error: x"},
			want: "[exit error]",
		},
		"a failed render's debug dump in another order": {
			helm: Outcome{Exit: 1, Stdout: "---\n# Source: c/templates/b.yaml\ny: [\n\n---\n# Source: c/templates/a.yaml\nx: 1\n", ErrLine: "Error: YAML parse error on c/templates/b.yaml: x"},
			ours: Outcome{Exit: 1, Stdout: "---\n# Source: c/templates/a.yaml\nx: 1\n\n---\n# Source: c/templates/b.yaml\ny: [\n", ErrLine: "Error: YAML parse error on c/templates/b.yaml: x"},
			want: "[]",
		},
		"a failed render's debug dump with other content": {
			helm: Outcome{Exit: 1, Stdout: "---\n# Source: c/templates/b.yaml\ny: [\n\n---\n# Source: c/templates/a.yaml\nx: 1\n"},
			ours: Outcome{Exit: 1, Stdout: "---\n# Source: c/templates/a.yaml\nx: 2\n\n---\n# Source: c/templates/b.yaml\ny: [\n"},
			want: "[stdout]",
		},
		"successful renders keep their order": {
			helm: Outcome{Stdout: "---\n# Source: c/templates/b.yaml\ny: 1\n---\n# Source: c/templates/a.yaml\nx: 1\n"},
			ours: Outcome{Stdout: "---\n# Source: c/templates/a.yaml\nx: 1\n---\n# Source: c/templates/b.yaml\ny: 1\n"},
			want: "[stdout]",
		},
		"helm hangs too": {
			helm: Outcome{Hung: true, Exit: -1},
			ours: Outcome{Hung: true, Exit: -1},
			want: "[]",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Compare(tc.helm, tc.ours)
			if s := sprint(got.Aspects); s != tc.want {
				t.Errorf("aspects %s, want %s", s, tc.want)
			}
		})
	}
}

func TestRerunHelm(t *testing.T) {
	tests := map[string]struct {
		helm, ours Outcome
		want       bool
	}{
		"different subcharts fail differently": {
			helm: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart b in c: cannot load values.yaml: x"},
			ours: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart a in c: error unpacking subchart d in a: cannot load Chart.yaml: y"},
			want: true,
		},
		"one subchart fails, other words": {
			helm: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart b in c: cannot load values.yaml: x"},
			ours: Outcome{Exit: 1, ErrLine: "Error: cannot load values.yaml: x"},
		},
		"lint findings name different subcharts": {
			helm: Outcome{Stdout: "[ERROR] templates/: error unpacking subchart b in c: x\n[ERROR] : unable to load chart\n\terror unpacking subchart a in c: y\n", Exit: 1, ErrLine: "Error: 1 chart(s) linted, 1 chart(s) failed"},
			ours: Outcome{Stdout: "[ERROR] templates/: error unpacking subchart a in c: y\n[ERROR] : unable to load chart\n\terror unpacking subchart a in c: y\n", Exit: 1, ErrLine: "Error: 1 chart(s) linted, 1 chart(s) failed"},
			want: true,
		},
		"lint findings differ elsewhere too": {
			helm: Outcome{Stdout: "[INFO] a\n\terror unpacking subchart b in c: x\n", Exit: 1, ErrLine: "Error: 1 chart(s) linted, 1 chart(s) failed"},
			ours: Outcome{Stdout: "[INFO] b\n\terror unpacking subchart a in c: y\n", Exit: 1, ErrLine: "Error: 1 chart(s) linted, 1 chart(s) failed"},
		},
		"stdout differs too": {
			helm: Outcome{Stdout: "a", Exit: 1, ErrLine: "Error: error unpacking subchart b in c: x"},
			ours: Outcome{Exit: 1, ErrLine: "Error: error unpacking subchart a in c: y"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := rerunHelm(Compare(tc.helm, tc.ours)); got != tc.want {
				t.Errorf("rerunHelm = %v, want %v", got, tc.want)
			}
		})
	}
}

func sprint(xs []string) string {
	out := "["
	for i, x := range xs {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
