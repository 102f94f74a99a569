// Package provenance signs and verifies chart archives with OpenPGP .prov files in
// Helm's format: a clearsigned message holding the chart's Chart.yaml, the YAML
// document end marker, and the archive's sha256 sum.
package provenance

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/clearsign"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"sigs.k8s.io/yaml"
)

// ErrNoSignature is a provenance file without a signed message block; it is
// an ErrMismatch too. Helm 3 says it as "failed to decode signature: " and this.
var ErrNoSignature = errors.New("signature block not found")

// ErrMismatch is returned when a .prov does not match its archive.
var ErrMismatch = errors.New("provenance does not match the chart")

// sums lists the signed files' digests, as "sha256:HEX".
type sums struct {
	Files  map[string]string `json:"files"`
	Images map[string]string `json:"images,omitempty"`
}

// Verification is the outcome of a successful Verify.
type Verification struct {
	SignedBy *openpgp.Entity
	FileHash string
	FileName string
}

// MessageBlock is the text Helm clearsigns for an archive: the metadata of the
// chart (or plugin) it holds, then the archive's sum.
func MessageBlock(archive []byte, filename string, md any) ([]byte, error) {
	data, err := yaml.Marshal(md)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(data)
	// "---" may not start a line of a clearsigned body; "..." ends the YAML document instead.
	b.WriteString("\n...\n")
	s, err := yaml.Marshal(sums{Files: map[string]string{filename: "sha256:" + digest(archive)}})
	if err != nil {
		return nil, err
	}
	b.Write(s)
	return b.Bytes(), nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// LoadKeyring reads an OpenPGP keyring, binary or armored.
func LoadKeyring(path string) (openpgp.EntityList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	ring, err := openpgp.ReadKeyRing(f)
	if err != nil {
		if _, serr := f.Seek(0, 0); serr == nil {
			if armored, aerr := openpgp.ReadArmoredKeyRing(f); aerr == nil {
				return armored, nil
			}
		}
		return nil, fmt.Errorf("read keyring %s: %w", path, err)
	}
	return ring, nil
}

// ErrNoKeyNamed is a signature asked for without naming the key.
var ErrNoKeyNamed = errors.New("no signing key named")

// findKey picks the entity whose identity is id, or the only one containing it.
func findKey(ring openpgp.EntityList, id string) (*openpgp.Entity, error) {
	var candidate *openpgp.Entity
	vague := false
	for _, e := range ring {
		for n := range e.Identities {
			if n == id {
				return e, nil
			}
			if strings.Contains(n, id) {
				if candidate != nil && candidate != e {
					vague = true
				}
				candidate = e
			}
		}
	}
	if vague {
		return nil, fmt.Errorf("more than one key contain the id %q", id)
	}
	if candidate == nil {
		return nil, errors.New("private key not found")
	}
	return candidate, nil
}

// Sign clearsigns the archive's message block with key id from the secret keyring.
func Sign(archive []byte, filename string, md any, keyring, id string, passphrase []byte) ([]byte, error) {
	if id == "" {
		// Never sign with a key the caller did not name.
		return nil, ErrNoKeyNamed
	}
	ring, err := LoadKeyring(keyring)
	if err != nil {
		return nil, err
	}
	e, err := findKey(ring, id)
	if err != nil {
		return nil, err
	}
	if e.PrivateKey == nil {
		return nil, errors.New("provided key is not a private key. Try providing a keyring with secret keys")
	}
	if e.PrivateKey.Encrypted {
		if passphrase == nil {
			return nil, errors.New("the signing key is encrypted: give its passphrase with --passphrase-file")
		}
		if err := e.PrivateKey.Decrypt(passphrase); err != nil {
			return nil, fmt.Errorf("decrypt signing key: %w", err)
		}
	}
	msg, err := MessageBlock(archive, filename, md)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w, err := clearsign.Encode(&out, e.PrivateKey, &packet.Config{DefaultHash: crypto.SHA512})
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(msg); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return out.Bytes(), nil
}

// ErrNoMessageBlock marks a .prov that holds no clearsigned message.
var ErrNoMessageBlock = errors.New("no signed message block")

// FileSums returns the file digests ("sha256:HEX" by file name) a .prov's
// signed message lists, without checking the signature.
func FileSums(prov []byte) (map[string]string, error) {
	block, _ := clearsign.Decode(prov)
	if block == nil {
		return nil, ErrNoMessageBlock
	}
	s, err := parseSums(block.Plaintext)
	return s.Files, err
}

// errNoSums marks a signed message without the file sums part (Helm's words).
var errNoSums = errors.New("message block must have at least two parts")

// parseSums reads the file sums that follow the metadata in a signed message.
func parseSums(plaintext []byte) (sums, error) {
	var s sums
	parts := bytes.Split(plaintext, []byte("\n...\n"))
	if len(parts) < 2 {
		return s, errNoSums
	}
	return s, yaml.Unmarshal(parts[1], &s)
}

// Digest is archive's sum as a .prov lists it, "sha256:HEX".
func Digest(archive []byte) string { return "sha256:" + digest(archive) }

// Verify checks prov's signature against the keyring and that it names filename with
// archive's sha256 sum. A chart the provenance does not vouch for is an ErrMismatch;
// the errors say what Helm's say.
func Verify(archive []byte, filename string, prov []byte, keyring string) (*Verification, error) {
	ring, err := LoadKeyring(keyring)
	if err != nil {
		return nil, fmt.Errorf("failed to load keyring: %w", err)
	}
	block, _ := clearsign.Decode(prov)
	if block == nil {
		return nil, mismatch(ErrNoSignature)
	}
	by, err := block.VerifySignature(ring, nil)
	if err != nil {
		return nil, mismatch(err)
	}
	s, err := parseSums(block.Plaintext)
	if err != nil {
		return nil, mismatch(err)
	}
	want := Digest(archive)
	got, ok := s.Files[filename]
	if !ok {
		return nil, mismatch(fmt.Errorf("provenance does not contain a SHA for a file named %q", filename))
	}
	if got != want {
		return nil, mismatch(fmt.Errorf("sha256 sum does not match for %s: %q != %q", filename, got, want))
	}
	return &Verification{SignedBy: by, FileHash: want, FileName: filename}, nil
}

// mismatchError is an ErrMismatch in the words of its cause.
type mismatchError struct{ err error }

func mismatch(err error) error { return &mismatchError{err: err} }

func (e *mismatchError) Error() string        { return e.err.Error() }
func (e *mismatchError) Unwrap() error        { return e.err }
func (e *mismatchError) Is(target error) bool { return target == ErrMismatch }
