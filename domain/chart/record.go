package chart

import (
	"encoding/json"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"
)

// Release records embed the chart as JSON. A record written by another
// program (Helm 4 adds modtime to the chart and its files, and
// schemamodtime) has members this model lacks; decoding a chart keeps them,
// for the chart and for its metadata, maintainers, dependencies, lock and
// files, and encoding it writes them back, so that rewriting a record (a
// status change) leaves them as they were.
//
// Only a chart decoded from JSON keeps anything: Chart.yaml, Chart.lock and
// repository indexes are read into the same types without it, and charts
// loaded from disk encode exactly as before.

var (
	chartFields      = jsonobj.FieldsOf(Chart{})
	metadataFields   = jsonobj.FieldsOf(Metadata{})
	maintainerFields = jsonobj.FieldsOf(Maintainer{})
	dependencyFields = jsonobj.FieldsOf(Dependency{})
	lockFields       = jsonobj.FieldsOf(Lock{})
	fileFields       = jsonobj.FieldsOf(File{})
)

// UnmarshalJSON decodes a chart, keeping the members it does not model.
func (c *Chart) UnmarshalJSON(b []byte) error {
	type plain Chart
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	c.rest = jsonobj.Read(b, chartFields)
	if md := c.Metadata; md != nil {
		raw := jsonobj.Get(b, "metadata")
		md.rest = jsonobj.Read(raw, metadataFields)
		jsonobj.Elements(jsonobj.Get(raw, "maintainers"), func(i int, v []byte) {
			if i < len(md.Maintainers) && md.Maintainers[i] != nil {
				md.Maintainers[i].rest = jsonobj.Read(v, maintainerFields)
			}
		})
		readDependencies(jsonobj.Get(raw, "dependencies"), md.Dependencies)
	}
	if l := c.Lock; l != nil {
		raw := jsonobj.Get(b, "lock")
		l.rest = jsonobj.Read(raw, lockFields)
		readDependencies(jsonobj.Get(raw, "dependencies"), l.Dependencies)
	}
	readFiles(jsonobj.Get(b, "templates"), c.Templates)
	readFiles(jsonobj.Get(b, "files"), c.Files)
	return nil
}

func readDependencies(raw []byte, deps []*Dependency) {
	jsonobj.Elements(raw, func(i int, v []byte) {
		if i < len(deps) && deps[i] != nil {
			deps[i].rest = jsonobj.Read(v, dependencyFields)
		}
	})
}

func readFiles(raw []byte, files []*File) {
	jsonobj.Elements(raw, func(i int, v []byte) {
		if i < len(files) && files[i] != nil {
			files[i].rest = jsonobj.Read(v, fileFields)
		}
	})
}

// MarshalJSON encodes a chart with the members it kept when it was decoded.
func (c Chart) MarshalJSON() ([]byte, error) {
	type plain Chart
	b, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	if c.Metadata != nil && c.Metadata.keeps() {
		md, err := c.Metadata.recordJSON()
		if err != nil {
			return nil, err
		}
		b = jsonobj.Set(b, "metadata", md)
	}
	if c.Lock != nil && lockKeeps(c.Lock) {
		l, err := json.Marshal(c.Lock)
		if err != nil {
			return nil, err
		}
		if dependenciesKeep(c.Lock.Dependencies) {
			deps, err := dependenciesJSON(c.Lock.Dependencies)
			if err != nil {
				return nil, err
			}
			l = jsonobj.Set(l, "dependencies", deps)
		}
		b = jsonobj.Set(b, "lock", c.Lock.rest.Write(l))
	}
	for _, list := range []struct {
		key   string
		files []*File
	}{{"templates", c.Templates}, {"files", c.Files}} {
		if !filesKeep(list.files) {
			continue
		}
		enc := make([][]byte, len(list.files))
		for i, f := range list.files {
			if enc[i], err = json.Marshal(f); err != nil {
				return nil, err
			}
			if f != nil {
				enc[i] = f.rest.Write(enc[i])
			}
		}
		b = jsonobj.Set(b, list.key, jsonobj.Array(enc))
	}
	return c.rest.Write(b), nil
}

// keeps reports whether the metadata, a maintainer or a dependency kept
// members.
func (md *Metadata) keeps() bool {
	if !md.rest.IsZero() || dependenciesKeep(md.Dependencies) {
		return true
	}
	for _, m := range md.Maintainers {
		if m != nil && !m.rest.IsZero() {
			return true
		}
	}
	return false
}

func (md *Metadata) recordJSON() ([]byte, error) {
	b, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	if dependenciesKeep(md.Dependencies) {
		deps, err := dependenciesJSON(md.Dependencies)
		if err != nil {
			return nil, err
		}
		b = jsonobj.Set(b, "dependencies", deps)
	}
	var maintainers [][]byte
	keep := false
	for _, m := range md.Maintainers {
		enc, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if m != nil {
			keep = keep || !m.rest.IsZero()
			enc = m.rest.Write(enc)
		}
		maintainers = append(maintainers, enc)
	}
	if keep {
		b = jsonobj.Set(b, "maintainers", jsonobj.Array(maintainers))
	}
	return md.rest.Write(b), nil
}

func lockKeeps(l *Lock) bool { return !l.rest.IsZero() || dependenciesKeep(l.Dependencies) }

func dependenciesKeep(deps []*Dependency) bool {
	for _, d := range deps {
		if d != nil && !d.rest.IsZero() {
			return true
		}
	}
	return false
}

func dependenciesJSON(deps []*Dependency) ([]byte, error) {
	enc := make([][]byte, len(deps))
	for i, d := range deps {
		var err error
		if enc[i], err = json.Marshal(d); err != nil {
			return nil, err
		}
		if d != nil {
			enc[i] = d.rest.Write(enc[i])
		}
	}
	return jsonobj.Array(enc), nil
}

func filesKeep(files []*File) bool {
	for _, f := range files {
		if f != nil && !f.rest.IsZero() {
			return true
		}
	}
	return false
}
