//go:build linux

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// hostileSchemas gives template charts whose values.schema.json would keep the
// validator busy for hours (Helm's runs past a minute and ignores SIGTERM): a
// 100,000-link $ref chain, and an allOf of ten $refs at each of eleven levels.
func hostileSchemas(t *testing.T, bin string) {
	var chain strings.Builder
	chain.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 100000 {
		fmt.Fprintf(&chain, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	chain.WriteString(`"d100000":{"type":"object"}}}`)
	laughs := []string{`"l0":{"type":"object"}`}
	for i := 1; i <= 11; i++ {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i-1)
		laughs = append(laughs, fmt.Sprintf(`"l%d":{"allOf":[%s]}`, i, strings.Repeat(ref+",", 9)+ref))
	}
	tests := map[string]struct {
		schema string
		want   string
	}{
		"100,000-link $ref chain": {
			schema: chain.String(),
			want:   "c/values.schema.json: render budget exceeded: the schema holds more than 10000 objects and booleans (raise it with --render-max-schema-nodes)",
		},
		"billion-laughs allOf": {
			schema: `{"$ref":"#/$defs/l11","$defs":{` + strings.Join(laughs, ",") + `}}`,
			want:   "c/values.schema.json: render budget exceeded: validating values against it takes more than 1000000 steps (raise it with --render-max-schema-steps)",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "c/values.schema.json": tt.schema})
			wantRefusal(t, runHostile(t, bin, dir, "template", filepath.Join(dir, "c")), tt.want)
		})
	}
}
