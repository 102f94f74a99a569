package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// helm4Logger writes log lines as Helm 4 does on stderr: slog's text format
// without the time ("level=WARN msg=\"this chart is deprecated\""), debug lines
// only with --debug.
func helm4Logger(w io.Writer, debug bool) *slog.Logger {
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// helm4Warning is how Helm 4 logs one of the findings the domain reports by its
// Helm 3 text: at which level, with which message and named attributes (the
// report's arguments, in order).
type helm4Warning struct {
	level slog.Level
	msg   string
	attrs []string
}

// helm4Warnings are the findings Helm 4 logs as structured records. Any other
// finding is a line Helm 4 still prints through the standard logger, which its
// slog setup shows at level INFO with the Helm 3 text as the message.
var helm4Warnings = map[string]helm4Warning{
	"Warning: Tag '%s' for chart %s returned non-bool value":            {slog.LevelWarn, "returned non-bool value", []string{"tag", "chart"}},
	"Warning: Condition path '%s' for chart %s returned non-bool value": {slog.LevelWarn, "returned non-bool value", []string{"path", "chart"}},
	"Warning: PathValue returned error %v":                              {slog.LevelWarn, "the method PathValue returned error", []string{"error"}},
	"Warning: ImportValues missing table from chart %s: %v":             {slog.LevelWarn, "ImportValues missing table from chart", []string{"chart", "error"}},
	"Warning: ImportValues missing table: %v":                           {slog.LevelWarn, "ImportValues missing table", []string{"error"}},
	"info: skipping unknown hook: %q":                                   {slog.LevelInfo, "skipping unknown hooks", []string{"hookTypes"}},
	"[INFO] Missing required value: %s":                                 {slog.LevelWarn, "missing required value", []string{"message"}},
	"[INFO] Fail: %s":                                                   {slog.LevelInfo, "funcMap fail", []string{"message"}},
}

// helm4Warn prints the domain's findings as Helm 4 logs them.
func helm4Warn(log *slog.Logger) func(format string, args ...any) {
	return func(format string, args ...any) {
		w, ok := helm4Warnings[format]
		if !ok || len(w.attrs) != len(args) {
			log.Info(fmt.Sprintf(format, args...))
			return
		}
		attrs := make([]slog.Attr, len(args))
		for i, a := range args {
			attrs[i] = slog.Any(w.attrs[i], a)
		}
		log.LogAttrs(context.Background(), w.level, w.msg, attrs...)
	}
}

// helm3LogSites are the source lines of Helm v3.22.0 that log each finding: its
// standard logger prefixes every line with them (log.Lshortfile).
var helm3LogSites = map[string]string{
	"warning: a valid Helm v3 hash was not found. Checking against Helm v2 hash...": "manager.go:122",
	"warning: skipping globals because destination %s is not a table.":              "coalesce.go:138",
	"warning: skipping globals because source %s is not a table.":                   "coalesce.go:145",
	"Conflict: cannot merge map onto non-map for %q. Skipping.":                     "coalesce.go:161",
	"key %s is table. Skipping":                                                     "coalesce.go:175",
	"warning: skipped value for %s.%s: Not a table.":                                "coalesce.go:237",
	"warning: cannot overwrite table with non table for %s (%v)":                    "coalesce.go:316",
	"warning: destination for %s is a table. Ignoring non-table value (%v)":         "coalesce.go:319",
	"Warning: Condition path '%s' for chart %s returned non-bool value":             "dependencies.go:64",
	"Warning: PathValue returned error %v":                                          "dependencies.go:67",
	"Warning: Tag '%s' for chart %s returned non-bool value":                        "dependencies.go:95",
	"Warning: ImportValues missing table from chart %s: %v":                         "dependencies.go:270",
	"Warning: ImportValues missing table: %v":                                       "dependencies.go:287",
	"info: skipping unknown hook: %q":                                               "manifest_sorter.go:199",
	"[INFO] Missing required value: %s":                                             "engine.go:206",
	"[INFO] Fail: %s":                                                               "engine.go:227",
}

// helm3Warn prints the domain's findings as Helm 3 logs them: always, each line
// after the Helm source line that logs it, without the control characters a
// chart's keys and names may hold (Helm 4's logger quotes them).
func helm3Warn(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		msg := humanText(fmt.Sprintf(format, args...))
		if site, ok := helm3LogSites[format]; ok {
			msg = site + ": " + msg
		}
		fmt.Fprintln(w, msg)
	}
}

// deprecatedChartWarning tells that a chart is deprecated, in the dialect's words.
func deprecatedChartWarning(d dialect.Dialect, w io.Writer, debug bool) {
	if d.IsHelm4() {
		helm4Logger(w, debug).Warn("this chart is deprecated")
		return
	}
	fmt.Fprintln(w, "WARNING: This chart is deprecated")
}

// dialectWarn reports findings on errOut as the dialect's Helm logs them.
func dialectWarn(d dialect.Dialect, errOut io.Writer) func(format string, args ...any) {
	if d.IsHelm4() {
		return helm4Warn(helm4Logger(errOut, false))
	}
	return helm3Warn(errOut)
}
