package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// A refused connection to the cluster's server says "kubernetes cluster
// unreachable" and names the server, as Helm does; other hosts' failures
// (a chart repository) are left as they are.
func TestClusterUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, refused := http.Get("http://" + addr + "/api/v1/namespaces/default/secrets")
	if refused == nil {
		t.Fatal("a closed port answered")
	}
	wrapped := fmt.Errorf("list secrets: %w", refused)
	tests := map[string]struct {
		err    error
		server string
		want   bool
	}{
		"the cluster's server":   {err: wrapped, server: "http://" + addr, want: true},
		"another host":           {err: wrapped, server: "https://127.0.0.1:6443"},
		"not a connection error": {err: errors.New("release: not found"), server: "http://" + addr},
		"no server known":        {err: wrapped},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := clusterUnreachable(tc.err, tc.server)
			if is := errors.Is(got, errClusterUnreachable); is != tc.want {
				t.Fatalf("%v: unreachable %v, want %v", got, is, tc.want)
			}
			if tc.want && (!strings.HasPrefix(got.Error(), "kubernetes cluster unreachable: list secrets: Get \"http://"+addr+"/") || clusterUnreachable(got, tc.server) != got) {
				t.Errorf("error: %v", got)
			}
		})
	}
}
