package oci_test

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
)

func TestRegistryTLS(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewTLSServer(registry.New(registry.Logger(nilLogger())))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	ref := "oci://" + host + "/charts"
	data := chartArchive(t, "1.0.0")

	c, _ := oci.NewClient(oci.Options{})
	if _, err := c.Push(ctx, data, nil, ref); err == nil {
		t.Error("unknown CA: want a certificate error")
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := oci.NewClient(oci.Options{CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, data, nil, ref); err != nil {
		t.Fatalf("push with --ca-file: %v", err)
	}
	insecure, _ := oci.NewClient(oci.Options{InsecureSkipTLSVerify: true})
	if _, err := insecure.Pull(ctx, ref+"/demo:1.0.0", "", false); err != nil {
		t.Errorf("pull with --insecure-skip-tls-verify: %v", err)
	}
	if _, err := oci.NewClient(oci.Options{CAFile: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing CA file: want an error")
	}
}
