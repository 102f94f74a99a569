// Package helmrecord reads and writes release records in Helm 3's storage format,
// shared by the Secret and ConfigMap stores. See doc.go for the format.
package helmrecord

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// MaxDecodedBytes bounds a decompressed record, so that a hostile record cannot
// exhaust memory. Helm bounds charts at 100 MiB decompressed; a record holds one
// chart plus values and manifests.
const MaxDecodedBytes = 512 << 20

var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// Encode returns a release as Helm stores it: base64 (standard alphabet) of the
// best-compression gzip of the release's JSON.
func Encode(r *release.Release) (string, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encode release %q as JSON: %w", r.Name, err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(js); err != nil {
		return "", fmt.Errorf("compress release %q: %w", r.Name, err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("compress release %q: %w", r.Name, err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// Decompress returns the JSON of a record's base64-decoded bytes: gunzipped
// (at most MaxDecodedBytes), or as they are when they are not gzip.
func Decompress(raw []byte) ([]byte, error) {
	if !bytes.HasPrefix(raw, gzipMagic) {
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	raw, err = io.ReadAll(io.LimitReader(zr, MaxDecodedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	if len(raw) > MaxDecodedBytes {
		return nil, fmt.Errorf("decompress: record larger than %d bytes", MaxDecodedBytes)
	}
	return raw, nil
}

// Decode reads a record written by Encode or by Helm. Like Helm, it also accepts
// base64 of uncompressed JSON (Helm 3.0 wrote those).
func Decode(data string) (*release.Release, error) {
	var r release.Release
	if err := decodeInto(data, &r); err != nil {
		return nil, err
	}
	if r.Name == "" {
		return nil, errors.New("decode JSON: record has no release name")
	}
	return &r, nil
}

// summaryRecord is the part of a record its summary needs.
type summaryRecord struct {
	Name  string        `json:"name"`
	Info  *release.Info `json:"info"`
	Chart *struct {
		Metadata *chart.Metadata `json:"metadata"`
	} `json:"chart"`
	Version   int    `json:"version"`
	Namespace string `json:"namespace"`
}

// DecodeSummary reads what Decode does, but only the part of the record its
// summary needs (Decode(data).Summarize()), several times faster.
func DecodeSummary(data string) (release.Summary, error) {
	raw, err := recordJSON(data)
	if err != nil {
		return release.Summary{}, err
	}
	if js, ok := summaryJSON(raw); ok {
		raw = js
	}
	var rec summaryRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return release.Summary{}, fmt.Errorf("decode JSON: %w", err)
	}
	if rec.Name == "" {
		return release.Summary{}, errors.New("decode JSON: record has no release name")
	}
	r := release.Release{Name: rec.Name, Info: rec.Info, Version: rec.Version, Namespace: rec.Namespace}
	if rec.Chart != nil {
		r.Chart = &chart.Chart{Metadata: rec.Chart.Metadata}
	}
	return r.Summarize(), nil
}

// recordJSON is a record's JSON: its text base64-decoded and decompressed.
func recordJSON(data string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("decode base64: %w", err)
	}
	return Decompress(raw)
}

// decodeInto unmarshals a record's JSON into v.
func decodeInto(data string, v any) error {
	raw, err := recordJSON(data)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode JSON: %w", err)
	}
	return nil
}
