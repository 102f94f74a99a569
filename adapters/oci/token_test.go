package oci_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
)

// TestBearerTokenAuth: a registry that sends clients to a token service, as Docker Hub,
// GHCR or Harbor do; credentials go to the token service, the registry sees only tokens.
func TestBearerTokenAuth(t *testing.T) {
	ctx := context.Background()
	const token = "t0ken"
	var tokensIssued atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "dave" || p != "pw" {
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		tokensIssued.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"token": token})
	}))
	t.Cleanup(tokenSrv.Close)
	reg := registry.New(registry.Logger(nilLogger()))
	regSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+tokenSrv.URL+`/token",service="test"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(regSrv.Close)
	host := strings.TrimPrefix(regSrv.URL, "http://")

	creds := filepath.Join(t.TempDir(), "config.json")
	c, err := oci.NewClient(oci.Options{CredentialsFile: creds, PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(ctx, host, "dave", "wrong"); err == nil {
		t.Fatal("login with a wrong password: want an error")
	}
	if err := c.Login(ctx, host, "dave", "pw"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, chartArchive(t, "1.0.0"), nil, "oci://"+host+"/charts"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pull(ctx, "oci://"+host+"/charts/demo", "^1", false); err != nil {
		t.Fatal(err)
	}
	if tokensIssued.Load() == 0 {
		t.Error("no token was requested")
	}
}
