package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
)

// --debug and -v log as kubectl users expect: nothing by default, debug
// records from -v 4 (or --debug, $HELM_DEBUG), API requests from -v 6.
func TestDebugLog(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	defer srv.Close()
	tests := map[string]struct {
		args          []string
		debug, called bool
	}{
		"quiet":    {},
		"--debug":  {args: []string{"--debug"}, debug: true},
		"-v 4":     {args: []string{"-v", "4"}, debug: true},
		"-v 6":     {args: []string{"-v=6"}, debug: true, called: true},
		"-v 3":     {args: []string{"-v", "3"}},
		"--v=7 ok": {args: []string{"--v=7"}, debug: true, called: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			s := loadSettings(func(string) string { return "" }, func() (string, error) { return t.TempDir(), nil })
			s.log.out = &log
			flags := genericclioptions.NewConfigFlags(true)
			f := newTestFactory(t, flags)
			f.settings = &s
			root := newRootCmd(flags, f, genericiooptions.NewTestIOStreamsDiscard(), BuildInfo{})
			cmd, rest0, err := root.Find(append([]string{"list"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest0); err != nil {
				t.Fatal(err)
			}
			s.logger().Debug("hello", "k", "v")
			cfg := s.withRequestLog(&rest.Config{Host: srv.URL})
			client, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Get(srv.URL + "/api")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := strings.Contains(log.String(), "msg=hello k=v"); got != tc.debug {
				t.Errorf("debug record logged %v, want %v:\n%s", got, tc.debug, log.String())
			}
			if got := strings.Contains(log.String(), `msg="api request" method=GET`) && strings.Contains(log.String(), "status=418"); got != tc.called {
				t.Errorf("request logged %v, want %v:\n%s", got, tc.called, log.String())
			}
		})
	}
}
