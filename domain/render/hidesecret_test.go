package render

import "testing"

func TestHideSecrets(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"a secret among others": {
			in:   "---\n# Source: c/templates/s.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  a: b\n\n---\n# Source: c/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n\n",
			want: "---\n# Source: c/templates/s.yaml\n# HIDDEN: The Secret output has been suppressed\n---\n# Source: c/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n\n",
		},
		"no secrets": {in: "---\n# Source: c/t.yaml\nkind: ConfigMap\n\n", want: "---\n# Source: c/t.yaml\nkind: ConfigMap\n\n"},
		"empty":      {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := HideSecrets(tc.in); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
