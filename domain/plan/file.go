package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// File format of a saved plan: an envelope whose digest covers the plan's bytes
// exactly as written, so that any edit is found.
const (
	FileAPIVersion = "kubectl-chart.io/v1alpha1"
	FileKind       = "SavedPlan"
	// APIVersion and Kind name the Plan value itself.
	APIVersion = "kubectl-chart.io/v1alpha1"
	Kind       = "Plan"
)

// maxFileSize bounds what reading a plan file may allocate.
const maxFileSize = 256 << 20

// ErrInvalidFile is a plan file that cannot be used: truncated, edited, of
// another format version, or not a plan at all.
var ErrInvalidFile = errors.New("invalid plan file")

// FileError names the plan file and why it cannot be used.
type FileError struct {
	File   string
	Reason string
}

func (e *FileError) Error() string { return fmt.Sprintf("plan file %s: %s", e.File, e.Reason) }

// Is makes errors.Is(err, ErrInvalidFile) true.
func (e *FileError) Is(target error) bool { return target == ErrInvalidFile }

type envelope struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Digest     string          `json:"digest"`
	Plan       json.RawMessage `json:"plan"`
}

// New starts a plan of an operation.
func New(op, command Operation) *Plan {
	return &Plan{APIVersion: APIVersion, Kind: Kind, Operation: op, Command: command}
}

// Write saves a plan in the file format.
func Write(w io.Writer, p *Plan) error {
	return WriteSaved(w, FileKind, p)
}

// WriteSaved saves v in the file format as an envelope of kind (a plan, a
// stack's plan).
func WriteSaved(w io.Writer, kind string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	out, err := json.MarshalIndent(envelope{APIVersion: FileAPIVersion, Kind: kind, Digest: digest(body), Plan: body}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

// Read loads a plan written by Write; file names it in errors.
func Read(r io.Reader, file string) (*Plan, error) {
	var p Plan
	if err := ReadSaved(r, file, FileKind, &p); err != nil {
		return nil, err
	}
	if p.APIVersion != APIVersion || p.Kind != Kind {
		return nil, &FileError{File: file, Reason: fmt.Sprintf("plan of version %q kind %q is not supported", p.APIVersion, p.Kind)}
	}
	if err := p.Validate(); err != nil {
		return nil, &FileError{File: file, Reason: err.Error()}
	}
	return &p, nil
}

// ReadSaved loads into v what WriteSaved wrote as kind, checking the
// envelope and its digest; file names it in errors.
func ReadSaved(r io.Reader, file, kind string, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return fmt.Errorf("read plan file %s: %w", file, err)
	}
	if len(data) > maxFileSize {
		return &FileError{File: file, Reason: fmt.Sprintf("larger than %d MiB", maxFileSize>>20)}
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return &FileError{File: file, Reason: fmt.Sprintf("not a saved plan (truncated or not JSON): %v", err)}
	}
	if env.Kind != kind || env.APIVersion == "" {
		return &FileError{File: file, Reason: fmt.Sprintf("not a saved plan (kind %q, want %q)", env.Kind, kind)}
	}
	if env.APIVersion != FileAPIVersion {
		return &FileError{File: file, Reason: fmt.Sprintf("format %s is not supported by this kubectl-chart (it reads %s); make the plan again with this version", env.APIVersion, FileAPIVersion)}
	}
	if len(bytes.TrimSpace(env.Plan)) == 0 {
		return &FileError{File: file, Reason: "holds no plan"}
	}
	// The digest covers the plan's bytes in the file: compact them as Write
	// produced them (MarshalIndent re-indents the raw message).
	var compact bytes.Buffer
	if err := json.Compact(&compact, env.Plan); err != nil {
		return &FileError{File: file, Reason: fmt.Sprintf("plan is not JSON: %v", err)}
	}
	if got := digest(compact.Bytes()); got != env.Digest {
		return &FileError{File: file, Reason: "digest mismatch: the plan was edited or damaged after it was saved"}
	}
	if err := json.Unmarshal(compact.Bytes(), v); err != nil {
		return &FileError{File: file, Reason: fmt.Sprintf("decode plan: %v", err)}
	}
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Validate checks what executing a plan relies on.
func (p *Plan) Validate() error {
	switch p.Operation {
	case OpInstall, OpUpgrade, OpRollback, OpUninstall, OpTest, OpCorrect:
	default:
		return fmt.Errorf("unknown operation %q", p.Operation)
	}
	if p.Release.Name == "" || p.Release.Namespace == "" {
		return errors.New("names no release")
	}
	if p.Cluster == "" {
		return errors.New("is bound to no cluster")
	}
	if p.Operation != OpUninstall && p.Operation != OpTest && p.Operation != OpCorrect && p.Record == nil {
		return fmt.Errorf("%s plan holds no release record", p.Operation)
	}
	if p.Record != nil && (p.Record.Name != p.Release.Name || p.Record.Namespace != p.Release.Namespace) {
		return errors.New("its record is of another release")
	}
	for _, s := range p.Steps() {
		switch s.Action {
		case ActionCreate, ActionUpdate, ActionReplace, ActionAdopt:
			if s.Desired == nil {
				return fmt.Errorf("step %s (%s) has no object", s.Ref, s.Action)
			}
			if r := ports.RefOf(s.Desired); r != s.Ref {
				return fmt.Errorf("step %s (%s) holds another object (%s)", s.Ref, s.Action, r)
			}
		case ActionDelete, ActionNoOp:
		default:
			return fmt.Errorf("step %s has unknown action %q", s.Ref, s.Action)
		}
		if s.Ref.Kind == "" || s.Ref.Name == "" || s.Ref.APIVersion == "" {
			return fmt.Errorf("a step names no object (%+v)", s.Ref)
		}
	}
	return nil
}

// Digest is the sha256 of v's JSON, for the chart and values digests.
func Digest(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("digest: %w", err)
	}
	return digest(b), nil
}
