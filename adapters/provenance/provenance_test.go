package provenance_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// keyrings writes a secret and a public keyring for a fresh key and returns their paths.
func keyrings(t *testing.T, name string) (secret, public string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var s, p bytes.Buffer
	if err := e.SerializePrivate(&s, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(&p); err != nil {
		t.Fatal(err)
	}
	secret, public = filepath.Join(dir, "secring.gpg"), filepath.Join(dir, "pubring.gpg")
	if err := os.WriteFile(secret, s.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, p.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return secret, public
}

func TestSignVerify(t *testing.T) {
	secret, public := keyrings(t, "Alice")
	_, otherPublic := keyrings(t, "Mallory")
	md := &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0.0"}
	archive := []byte("pretend this is a chart archive")

	prov, err := provenance.Sign(archive, "demo-1.0.0.tgz", md, secret, "Alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := string(prov)
	for _, want := range []string{"-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA512", "name: demo", "\n...\nfiles:\n  demo-1.0.0.tgz: sha256:", "-----BEGIN PGP SIGNATURE-----"} {
		if !strings.Contains(text, want) {
			t.Errorf(".prov lacks %q:\n%s", want, text)
		}
	}
	v, err := provenance.Verify(archive, "demo-1.0.0.tgz", prov, public)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.SignedBy.Identities["Alice (test) <Alice@example.com>"]; !ok {
		t.Errorf("signed by %v", v.SignedBy.Identities)
	}

	tests := map[string]struct {
		archive []byte
		name    string
		prov    []byte
		keyring string
	}{
		"tampered archive":  {append(append([]byte{}, archive...), '!'), "demo-1.0.0.tgz", prov, public},
		"other file name":   {archive, "other-1.0.0.tgz", prov, public},
		"unknown signer":    {archive, "demo-1.0.0.tgz", prov, otherPublic},
		"tampered message":  {archive, "demo-1.0.0.tgz", bytes.Replace(prov, []byte("name: demo"), []byte("name: evil"), 1), public},
		"not a signed file": {archive, "demo-1.0.0.tgz", []byte("hello"), public},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := provenance.Verify(tc.archive, tc.name, tc.prov, tc.keyring)
			if !errors.Is(err, provenance.ErrMismatch) {
				t.Fatalf("err = %v, want ErrMismatch", err)
			}
			t.Log(err)
		})
	}
	if _, err := provenance.Sign(archive, "demo-1.0.0.tgz", md, public, "Alice", nil); err == nil {
		t.Error("signing with a public keyring: want an error")
	}
	if _, err := provenance.Sign(archive, "demo-1.0.0.tgz", md, secret, "Bob", nil); err == nil {
		t.Error("unknown key: want an error")
	}
}

func TestSignWithEncryptedKey(t *testing.T) {
	e, err := openpgp.NewEntity("Locked", "", "locked@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pub bytes.Buffer
	if err := e.Serialize(&pub); err != nil {
		t.Fatal(err)
	}
	if err := e.EncryptPrivateKeys([]byte("open sesame"), nil); err != nil {
		t.Fatal(err)
	}
	var sec bytes.Buffer
	if err := e.SerializePrivateWithoutSigning(&sec, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	secret, public := filepath.Join(dir, "secring.gpg"), filepath.Join(dir, "pubring.gpg")
	if err := os.WriteFile(secret, sec.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, pub.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	md := &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0.0"}
	data := []byte("archive")
	if _, err := provenance.Sign(data, "demo-1.0.0.tgz", md, secret, "Locked", nil); err == nil || !strings.Contains(err.Error(), "passphrase") {
		t.Errorf("no passphrase: err = %v", err)
	}
	if _, err := provenance.Sign(data, "demo-1.0.0.tgz", md, secret, "Locked", []byte("wrong")); err == nil {
		t.Error("wrong passphrase: want an error")
	}
	prov, err := provenance.Sign(data, "demo-1.0.0.tgz", md, secret, "Locked", []byte("open sesame"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provenance.Verify(data, "demo-1.0.0.tgz", prov, public); err != nil {
		t.Error(err)
	}
}

// A signature needs a key the caller named: none is picked from the keyring.
func TestSignRefusesUnnamedKey(t *testing.T) {
	if _, err := provenance.Sign([]byte("x"), "c-0.1.0.tgz", nil, filepath.Join(t.TempDir(), "ring.gpg"), "", nil); !errors.Is(err, provenance.ErrNoKeyNamed) {
		t.Fatalf("error = %v, want ErrNoKeyNamed", err)
	}
}
