package chart

import (
	"encoding/json"
	"time"
)

// Helm4Record is the chart as Helm 4's release records hold it: with the
// modification times its loader read (modtime of the chart, from Chart.yaml,
// and of each file when known; schemamodtime always, zero without a schema).
// A chart decoded from a record keeps the members it had instead.
func (c *Chart) Helm4Record() *Chart {
	if c == nil {
		return nil
	}
	out := *c
	if !c.ModTime.IsZero() {
		out.rest = out.rest.With("modtime", timeJSON(c.ModTime))
	}
	out.rest = out.rest.With("schemamodtime", timeJSON(c.SchemaModTime))
	out.Templates = filesWithModTimes(c.Templates)
	out.Files = filesWithModTimes(c.Files)
	return &out
}

func filesWithModTimes(files []*File) []*File {
	out := make([]*File, len(files))
	for i, f := range files {
		if f == nil || f.ModTime.IsZero() {
			out[i] = f
			continue
		}
		g := *f
		g.rest = g.rest.With("modtime", timeJSON(f.ModTime))
		out[i] = &g
	}
	if files == nil {
		return nil
	}
	return out
}

func timeJSON(t time.Time) []byte {
	b, _ := json.Marshal(t) // a time's encoding fails only outside years 0-9999
	return b
}
