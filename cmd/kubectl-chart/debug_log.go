package main

import (
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Verbosity levels, as kubectl's -v: 4 is debug output (Helm's --debug), 6
// logs each API request.
const (
	verbosityDebug    = 4
	verbosityRequests = 6
)

// logging is where the program logs and how much: -v (kubectl's) and
// --debug (Helm's, -v 4).
type logging struct {
	verbosity int
	out       io.Writer
}

// lockedWriter serialises writes: every logger made by settings.logger has a
// handler of its own, and clients log requests from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// level is the verbosity in effect: --debug (or $HELM_DEBUG) is at least 4.
func (s *settings) level() int {
	if s.limits.debug && s.log.verbosity < verbosityDebug {
		return verbosityDebug
	}
	return s.log.verbosity
}

// logger writes structured records to stderr at -v 4 and above; below, it
// discards them.
func (s *settings) logger() *slog.Logger {
	if s.level() < verbosityDebug || s.log.out == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(s.log.out, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// withRequestLog logs each API request at -v 6 and above, as kubectl does.
func (s *settings) withRequestLog(cfg *rest.Config) *rest.Config {
	if s.level() < verbosityRequests {
		return cfg
	}
	log := s.logger()
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return requestLog{next: rt, log: log}
	})
	return cfg
}

// requestLog is a RoundTripper that logs requests and their outcome.
type requestLog struct {
	next http.RoundTripper
	log  *slog.Logger
}

func (r requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := r.next.RoundTrip(req)
	attrs := []any{"method", req.Method, "url", req.URL.String(), "milliseconds", time.Since(start).Milliseconds()}
	if err != nil {
		r.log.DebugContext(req.Context(), "api request", append(attrs, "error", err.Error())...)
		return resp, err
	}
	r.log.DebugContext(req.Context(), "api request", append(attrs, "status", resp.StatusCode)...)
	return resp, nil
}
