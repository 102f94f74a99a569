package helmfile

import (
	"bytes"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// releaseData is the template data of release templates and release values
// files: the environment plus the release.
type releaseData struct {
	Environment envTemplate
	Release     releaseInfo
	Values      map[string]any
	StateValues *map[string]any
	KubeContext string
	Namespace   string
	Chart       string
}

type releaseInfo struct {
	Name         string
	Namespace    string
	Labels       map[string]string
	Chart        string
	ChartVersion string
	KubeContext  string
}

func newReleaseData(rs releaseSpec, e env) *releaseData {
	ed := newEnvData(e)
	d := &releaseData{
		Environment: ed.Environment,
		Release:     releaseInfo{Name: rs.Name, Namespace: rs.Namespace, Labels: rs.Labels, Chart: rs.Chart, ChartVersion: rs.Version, KubeContext: rs.KubeContext},
		Values:      ed.Values,
	}
	d.StateValues = &d.Values
	return d
}

// renderRelease renders the template expressions left in a release's
// fields (helmfile's release templates, written escaped in the state file).
func (r *loadRun) renderRelease(dir string, rs releaseSpec, e env) (releaseSpec, error) {
	rd := renderer{ctx: r.ctx, host: r.host, dir: dir, allowExec: r.opts.AllowExec}
	var firstErr error
	str := func(s string) string {
		if firstErr != nil || !strings.Contains(s, "{{") {
			return s
		}
		out, err := rd.render("stringTemplate", s, newReleaseData(rs, e))
		if err != nil {
			firstErr = fmt.Errorf("%s: release %q: %w", rs.source, rs.Name, err)
			return s
		}
		return string(out)
	}
	// The fields helmfile renders: the name, chart, namespace and version
	// (trimmed), labels and values file names; inline values and set are not.
	rs.Name = strings.TrimSpace(str(rs.Name))
	rs.Chart = strings.TrimSpace(str(rs.Chart))
	rs.Namespace = strings.TrimSpace(str(rs.Namespace))
	rs.Version = strings.TrimSpace(str(rs.Version))
	for k, v := range rs.Labels {
		rs.Labels[k] = str(v)
	}
	for i, v := range rs.Values {
		if p, ok := v.(string); ok {
			rs.Values[i] = str(p)
		}
	}
	return rs, firstErr
}

// releaseValues are a release's values documents in order: files (rendered
// when .gotmpl, with the release's data) and inline maps as YAML.
func (r *loadRun) releaseValues(dir string, rs releaseSpec, e env) ([][]byte, error) {
	var out [][]byte
	for _, v := range rs.Values {
		switch t := v.(type) {
		case string:
			paths, err := r.resolve(dir, "values", t, rs.MissingFileHandler)
			if err != nil {
				return nil, fmt.Errorf("%s: release %q: %w", rs.source, rs.Name, err)
			}
			if len(paths) > 1 {
				return nil, fmt.Errorf("%s: release %q: glob patterns in release values and secrets is not supported yet", rs.source, rs.Name)
			}
			for _, p := range paths {
				b, err := r.renderFile(p, newReleaseData(rs, e))
				if err != nil {
					return nil, fmt.Errorf("%s: release %q: failed to render values files %q: %w", rs.source, rs.Name, t, err)
				}
				out = append(out, b)
			}
		case map[string]any:
			var buf bytes.Buffer
			enc := yamlv3.NewEncoder(&buf)
			enc.SetIndent(2)
			if err := enc.Encode(t); err != nil {
				return nil, fmt.Errorf("%s: release %q: %w", rs.source, rs.Name, err)
			}
			_ = enc.Close()
			out = append(out, buf.Bytes())
		default:
			return nil, fmt.Errorf("%s: release %q: unexpected type of value: value=%v, type=%T", rs.source, rs.Name, t, t)
		}
	}
	return out, nil
}

// conditionEnabled is helmfile's condition: empty, true/false, or
// "path.enabled" looked up in the environment's values.
func conditionEnabled(cond string, values map[string]any) (bool, error) {
	switch strings.ToLower(cond) {
	case "", "true":
		return true, nil
	case "false":
		return false, nil
	}
	keys := strings.Split(cond, ".")
	if keys[len(keys)-1] != "enabled" {
		return false, fmt.Errorf("Condition value must be in the form 'foo.enabled' where 'foo' can be modified as necessary") //nolint:staticcheck // helmfile's words
	}
	cur, path := values, ""
	for _, k := range keys[:len(keys)-1] {
		path += "." + k
		v, ok := cur[k]
		if !ok {
			return false, fmt.Errorf("environment values field '%s' not found", path)
		}
		if cur, ok = v.(map[string]any); !ok {
			return false, fmt.Errorf("environment values field '%s' is not a map", path)
		}
	}
	b, _ := cur["enabled"].(bool)
	return b, nil
}
