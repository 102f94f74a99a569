package chart

import (
	"encoding/json"
	"time"
)

// Helm4Record is the chart as Helm 4's release records hold it: with the
// modification times its loader read (modtime of the chart, from Chart.yaml,
// and of each file when known; schemamodtime always, zero without a schema).
// A chart decoded from a record keeps the times it had instead.
func (c *Chart) Helm4Record() *Chart {
	if c == nil {
		return nil
	}
	out := *c
	if out.RecordModTime == nil && !c.ModTime.IsZero() {
		out.RecordModTime = timeJSON(c.ModTime)
	}
	if out.RecordSchemaModTime == nil {
		out.RecordSchemaModTime = timeJSON(c.SchemaModTime)
	}
	out.Templates = filesWithModTimes(c.Templates)
	out.Files = filesWithModTimes(c.Files)
	return &out
}

func filesWithModTimes(files []*File) []*File {
	if files == nil {
		return nil
	}
	out := make([]*File, len(files))
	for i, f := range files {
		if f == nil || f.RecordModTime != nil || f.ModTime.IsZero() {
			out[i] = f
			continue
		}
		g := *f
		g.RecordModTime = timeJSON(f.ModTime)
		out[i] = &g
	}
	return out
}

func timeJSON(t time.Time) json.RawMessage {
	b, _ := json.Marshal(t) // a time's encoding fails only outside years 0-9999
	return b
}
