package tlsfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// The words are Helm's, checked against both Helm peers by the commands'
// tests (TestTLSFilesLikeHelm, TestRepositoryTLSErrorsLikeHelm); here, which
// files are refused, by each dialect.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := map[string]struct {
		cert, key, ca string
		refused       bool
	}{
		"nothing":             {},
		"CA missing":          {ca: missing, refused: true},
		"CA not PEM":          {ca: garbage, refused: true},
		"pair missing":        {cert: missing, key: missing, refused: true},
		"pair not PEM":        {cert: garbage, key: garbage, refused: true},
		"certificate, no key": {cert: garbage},
	}
	for name, tc := range tests {
		for _, d := range []dialect.Dialect{dialect.Helm3, dialect.Helm4} {
			t.Run(name+"/"+string(d), func(t *testing.T) {
				if !Used(tc.cert, tc.key, tc.ca, false) {
					if tc.refused {
						t.Fatal("files Helm reads are not used")
					}
					return
				}
				err := Check(d, tc.cert, tc.key, tc.ca)
				if (err != nil) != tc.refused {
					t.Fatalf("err = %v, refused %v", err, tc.refused)
				}
				if err != nil && !strings.HasPrefix(err.Error(), "can't create TLS config for client: ") {
					t.Errorf("err = %v", err)
				}
			})
		}
	}
}
