package helmfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	yamlv3 "go.yaml.in/yaml/v3"
)

// ErrExecNotAllowed is returned by exec and envExec unless the user allowed
// commands (--allow-exec): a state file must not run programs by surprise.
var ErrExecNotAllowed = errors.New("exec runs a command and is refused without --allow-exec")

// renderer renders helmfile's templates: sprig's text functions plus the
// functions helmfile adds, reading files relative to dir through the host.
type renderer struct {
	ctx       context.Context
	host      Host
	dir       string
	allowExec bool
}

// funcs is helmfile's function map for templates rendered in r.dir.
func (r renderer) funcs(t **template.Template) template.FuncMap {
	m := sprig.TxtFuncMap()
	m["sprigGet"] = m["get"]
	m["env"] = func(name string) string { v, _ := r.host.LookupEnv(name); return v }
	m["expandenv"] = func(s string) string {
		return expandEnv(s, r.host.LookupEnv)
	}
	m["exec"] = func(command string, args []any, inputs ...string) (string, error) {
		return r.exec(nil, command, args, inputs...)
	}
	m["envExec"] = r.exec
	m["isFile"] = func(name string) (bool, error) { return r.is(name, false) }
	m["isDir"] = func(name string) (bool, error) { return r.is(name, true) }
	m["readFile"] = func(name string) (string, error) {
		b, err := r.host.ReadFile(r.path(name))
		return string(b), err
	}
	m["readDir"] = r.readDir
	m["readDirEntries"] = func(name string) ([]fs.DirEntry, error) {
		p := r.path(name)
		entries, err := r.host.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("ReadDirEntries %q: %w", p, err)
		}
		return entries, nil
	}
	m["toYaml"] = toYAML
	m["fromYaml"] = fromYAML
	m["setValueAtPath"] = setValueAtPath
	m["requiredEnv"] = func(name string) (string, error) {
		if v, ok := r.host.LookupEnv(name); ok && v != "" {
			return v, nil
		}
		return "", fmt.Errorf("required env var `%s` is not set", name)
	}
	m["get"] = get
	m["getOrNil"] = getOrNil
	m["required"] = required
	m["tpl"] = func(text string, data any) (string, error) {
		b, err := r.render("stringTemplate", text, data)
		return string(b), err
	}
	included := map[string]int{}
	m["include"] = func(name string, data any) (string, error) {
		if included[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		included[name]++
		defer func() { included[name]-- }()
		var buf strings.Builder
		err := (*t).ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	return m
}

func (r renderer) path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(r.dir, name)
}

func (r renderer) is(name string, dir bool) (bool, error) {
	fi, err := r.host.Stat(r.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return fi.IsDir() == dir, nil
}

func (r renderer) readDir(name string) ([]string, error) {
	p := r.path(name)
	entries, err := r.host.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("ReadDir %q: %w", p, err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() {
			paths = append(paths, filepath.Join(name, e.Name()))
		}
	}
	return paths, nil
}

func (r renderer) exec(envs map[string]any, command string, args []any, inputs ...string) (string, error) {
	if !r.allowExec {
		return "", ErrExecNotAllowed
	}
	if len(envs) > 0 {
		return "", errors.New("envExec is not supported")
	}
	strArgs := make([]string, len(args))
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			return "", fmt.Errorf("unexpected type of arg \"%s\" in args %v at index %d", reflect.TypeOf(a), args, i)
		}
		strArgs[i] = s
	}
	return r.host.Exec(r.ctx, command, strArgs, strings.Join(inputs, ""))
}

// render executes text as a template named name with data; as in helmfile,
// a missing map key is an error, and _*.tpl files in r.dir are helpers.
func (r renderer) render(name, text string, data any) ([]byte, error) {
	t := template.New(name).Option("missingkey=error")
	t = t.Funcs(r.funcs(&t))
	helpers, err := r.host.Glob(filepath.Join(r.dir, "_*.tpl"))
	if err != nil {
		return nil, fmt.Errorf("failed to glob helper templates: %w", err)
	}
	for _, h := range helpers {
		b, err := r.host.ReadFile(h)
		if err != nil {
			return nil, fmt.Errorf("failed to read helper template %s: %w", h, err)
		}
		if t, err = t.Parse(string(b)); err != nil {
			return nil, fmt.Errorf("failed to parse helper template %s: %w", h, err)
		}
	}
	if t, err = t.Parse(text); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func toYAML(v any) (string, error) {
	var buf bytes.Buffer
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func fromYAML(s string) (any, error) {
	var m any
	if err := yamlv3.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%s, offending yaml: %s", err, s)
	}
	return stringifyKeys(m), nil
}

// stringifyKeys turns YAML's map[any]any into map[string]any all the way down.
func stringifyKeys(v any) any {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = stringifyKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range t {
			t[k] = stringifyKeys(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = stringifyKeys(e)
		}
		return t
	}
	return v
}

func setValueAtPath(path string, value any, values map[string]any) (map[string]any, error) {
	keys := strings.Split(path, ".")
	current := values
	for _, k := range keys[:len(keys)-1] {
		v, ok := current[k]
		if !ok {
			return nil, fmt.Errorf("failed to set value at path \"%s\": value for key \"%s\" does not exist", path, k)
		}
		next, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("failed to set value at path \"%s\": value for key \"%s\" was not a map", path, k)
		}
		current = next
	}
	current[keys[len(keys)-1]] = value
	return values, nil
}

func required(warn string, val any) (any, error) {
	if val == nil {
		return nil, errors.New(warn)
	}
	if s, ok := val.(string); ok && s == "" {
		return nil, errors.New(warn)
	}
	return val, nil
}

// errNoValue is get's "nothing there", which getOrNil turns into nil.
type errNoValue struct{ msg string }

func (e *errNoValue) Error() string { return e.msg }

func get(path string, args ...any) (any, error) {
	var def, obj any
	var hasDef bool
	switch len(args) {
	case 1:
		obj = args[0]
	case 2:
		hasDef, def, obj = true, args[0], args[1]
	default:
		return nil, fmt.Errorf("unexpected number of args passed to the template function get(path, [def, ]obj): expected 1 or 2, got %d, args was %v", len(args), args)
	}
	for path != "" {
		key, rest, _ := strings.Cut(path, ".")
		if p, ok := obj.(*map[string]any); ok {
			obj = *p
		}
		var v any
		var ok bool
		switch t := obj.(type) {
		case map[string]any:
			v, ok = t[key]
		case map[string]string:
			v, ok = t[key]
		default:
			rv := reflect.ValueOf(obj)
			if rv.Kind() != reflect.Struct {
				return nil, &errNoValue{fmt.Sprintf("unexpected type(%v) of value for key \"%s\": it must be either map[string]any or any struct", reflect.TypeOf(obj), key)}
			}
			f := rv.FieldByName(key)
			if ok = f.IsValid(); ok {
				v = f.Interface()
			}
		}
		if !ok {
			if hasDef {
				return def, nil
			}
			return nil, &errNoValue{fmt.Sprintf("no value exist for key \"%s\" in %v", key, obj)}
		}
		obj, path = v, rest
	}
	return obj, nil
}

func getOrNil(path string, obj any) (any, error) {
	v, err := get(path, obj)
	var nv *errNoValue
	if errors.As(err, &nv) {
		return nil, nil
	}
	return v, err
}

// expandEnv is os.ExpandEnv reading the host's environment.
func expandEnv(s string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		name, w := envName(s[i+1:])
		if name == "" && w > 0 {
			i += w
			continue
		}
		if name == "" {
			b.WriteByte(s[i])
			continue
		}
		v, _ := lookup(name)
		b.WriteString(v)
		i += w
	}
	return b.String()
}

// envName reads a variable name after '$': {name} or letters, digits and '_'.
func envName(s string) (string, int) {
	if s[0] == '{' {
		if end := strings.IndexByte(s, '}'); end > 0 {
			return s[1:end], end + 1
		}
		return "", 1
	}
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	return s[:n], n
}
