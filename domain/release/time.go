package release

import (
	"bytes"
	"time"
)

// Time is a timestamp that encodes the zero time as "" in JSON, as Helm's release
// records do, so records round-trip between Helm and kubectl-chart unchanged.
type Time struct {
	time.Time
}

// MarshalJSON writes "" for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte(`""`), nil
	}
	return t.Time.MarshalJSON()
}

// UnmarshalJSON accepts "" and null as the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) || bytes.Equal(b, []byte(`""`)) {
		return nil
	}
	return t.Time.UnmarshalJSON(b)
}
