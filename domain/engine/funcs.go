package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/domain/yamldoc"
)

// baseFuncs is sprig's text function map without access to the environment, plus
// Helm's serialisation functions. As in Helm v3.22 the only must* serialisation
// functions are sprig's mustToJson and mustFromJson (which returns any JSON value).
// include, tpl, required, fail and lookup are bound per render.
func baseFuncs() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	for name, fn := range map[string]any{
		"toToml":        toTOML,
		"fromToml":      fromTOML,
		"toYaml":        toYAML,
		"toYamlPretty":  toYAMLPretty,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
	} {
		f[name] = fn
	}
	guardSprigEncoders(f)
	return f
}

func toYAML(v any) string {
	s, err := mustToYAML(v)
	if err != nil {
		return ""
	}
	return s
}

func mustToYAML(v any) (string, error) {
	data, err := marshalYAML(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func toYAMLPretty(v any) string {
	if checkNesting(v, yamlMaxDepth) != nil {
		return ""
	}
	var buf bytes.Buffer
	enc := goyaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// yamlMemo remembers fromYaml results within one render: charts often parse the
// same text several times (istio-base parses every CRD twice, one right after
// the other). Callers get a deep copy, since templates may change what they
// got. Templates executed concurrently share it. It holds the results of the
// latest texts up to memoMaxBytes of them: a parsed document takes many times
// its text's memory, and a memo that kept them all would keep every CRD a chart
// parses alive to the end of the render, which the collector then multiplies.
type yamlMemo struct {
	mu   sync.Mutex
	docs map[string]yamlResult
	// order is the texts in docs, oldest first; size their bytes.
	order []string
	size  int
}

type yamlResult struct {
	m   map[string]any
	err error
}

const (
	// memoMinLen keeps small documents out of the memo: parsing them is cheap.
	memoMinLen = 512
	// memoMaxBytes bounds the text whose results the memo holds.
	memoMaxBytes = 256 << 10
)

func newYAMLMemo() *yamlMemo {
	return &yamlMemo{docs: map[string]yamlResult{}}
}

func (y *yamlMemo) fromYAML(s string) map[string]any {
	if len(s) < memoMinLen {
		return fromYAML(s)
	}
	y.mu.Lock()
	r, ok := y.docs[s]
	y.mu.Unlock()
	if !ok {
		// Parsed outside the lock: two goroutines may parse one text, to the
		// same result.
		r.m, r.err = mustFromYAML(s)
		y.remember(s, r)
	}
	m, _ := values.DeepCopy(r.m).(map[string]any)
	if r.err != nil {
		m["Error"] = r.err.Error()
	}
	return m
}

// remember adds the result of parsing s, forgetting the oldest results beyond
// memoMaxBytes (the latest is always kept).
func (y *yamlMemo) remember(s string, r yamlResult) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if _, ok := y.docs[s]; ok {
		return
	}
	y.docs[s] = r
	y.order = append(y.order, s)
	y.size += len(s)
	for y.size > memoMaxBytes && len(y.order) > 1 {
		old := y.order[0]
		y.order[0] = ""
		y.order = y.order[1:]
		y.size -= len(old)
		delete(y.docs, old)
	}
}

// semverMemoSize bounds the results memoSemverCompare remembers.
const semverMemoSize = 1024

// memoSemverCompare remembers compare's results: charts compare one constraint
// with one version in template after template, and parsing the constraint is
// most of the cost. It is bound to one goroutine's functions.
func memoSemverCompare(compare func(string, string) (bool, error)) func(string, string) (bool, error) {
	type result struct {
		ok  bool
		err error
	}
	memo := map[[2]string]result{}
	return func(constraint, version string) (bool, error) {
		k := [2]string{constraint, version}
		if r, ok := memo[k]; ok {
			return r.ok, r.err
		}
		ok, err := compare(constraint, version)
		if len(memo) < semverMemoSize {
			memo[k] = result{ok, err}
		}
		return ok, err
	}
}

// fromYAML reports a parse error inside the result under "Error", as Helm does.
func fromYAML(s string) map[string]any {
	m, err := mustFromYAML(s)
	if err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func mustFromYAML(s string) (map[string]any, error) {
	return yamldoc.UnmarshalMap([]byte(s))
}

func fromYAMLArray(s string) []any {
	a, err := mustFromYAMLArray(s)
	if err != nil {
		return []any{err.Error()}
	}
	return a
}

func mustFromYAMLArray(s string) ([]any, error) {
	a := []any{}
	err := yaml.Unmarshal([]byte(s), &a)
	return a, err
}

func toTOML(v any) string {
	s, err := mustToTOML(v)
	if err != nil {
		return err.Error()
	}
	return s
}

func mustToTOML(v any) (string, error) {
	// TOML spells out every key's path, so its text grows with the square of the depth.
	if err := checkNesting(v, yamlMaxDepth); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err := toml.NewEncoder(&buf).Encode(v)
	return buf.String(), err
}

func fromTOML(s string) map[string]any {
	m, err := mustFromTOML(s)
	if err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func mustFromTOML(s string) (map[string]any, error) {
	m := map[string]any{}
	err := toml.Unmarshal([]byte(s), &m)
	return m, err
}

func toJSON(v any) string {
	s, err := mustToJSON(v)
	if err != nil {
		return ""
	}
	return s
}

func mustToJSON(v any) (string, error) {
	if err := checkNesting(v, encodeMaxDepth); err != nil {
		return "", err
	}
	data, err := json.Marshal(v)
	return string(data), err
}

func fromJSON(s string) map[string]any {
	m, err := mustFromJSON(s)
	if err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func mustFromJSON(s string) (map[string]any, error) {
	m := map[string]any{}
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}

func fromJSONArray(s string) []any {
	a, err := mustFromJSONArray(s)
	if err != nil {
		return []any{err.Error()}
	}
	return a
}

func mustFromJSONArray(s string) ([]any, error) {
	a := []any{}
	err := json.Unmarshal([]byte(s), &a)
	return a, err
}
