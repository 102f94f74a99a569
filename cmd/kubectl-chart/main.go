// Command kubectl-chart is a Helm-compatible package manager for Kubernetes, run as
// the kubectl plugin `kubectl chart`.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/redact"
)

// Stamped at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = unknownCommit
)

// unknownCommit is the commit of a build that was not stamped.
const unknownCommit = "unknown"

func main() {
	_, gogcSet := os.LookupEnv("GOGC")
	_, memLimitSet := os.LookupEnv("GOMEMLIMIT")
	tuneGC(gogcSet, memLimitSet)
	os.Exit(run())
}

func run() int {
	// Output never decides an operation's fate: when whoever reads stdout or
	// stderr goes away (kubectl chart upgrade ... | head), writes fail with
	// EPIPE and are ignored instead of killing the process with the revision
	// pending. A handler, unlike ignoring the signal, is not inherited by the
	// plugins we run.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first SIGINT or SIGTERM cancels the operation, which records its
		// revision failed; a second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	args := completionArgs(os.Args[0], os.Args[1:])
	build := BuildInfo{Version: version, Commit: commit, AsHelm: invokedAsHelm(os.Args[0])}
	if build.AsHelm && commandDialect(&settings{compat: os.Getenv(dialect.EnvVar)}).IsHelm4() {
		if err := colorModeError(args, envColorMode(os.Getenv)); err != nil {
			// As Helm 4 reports it: its logger's line, before any command.
			fmt.Fprintf(streams.ErrOut, "level=WARN msg=\"command failed\" error=%s\n", strconv.Quote(err.Error()))
			return 1
		}
	}
	root := newRootCmdFor(streams, build, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var exit *exitCodeError
	if errors.As(err, &exit) {
		if exit.err != nil {
			printError(streams, build, exit.err)
		}
		return exit.code
	}
	if err != nil {
		printError(streams, build, err)
		return 1
	}
	return 0
}

// printError prints err as Helm does, less the password of any URL it quotes (an
// error can echo what the user typed: repo add x http://user:PW@host/) and less the
// terminal controls that untrusted text in it may hold. A command it tells the
// user to run names this program as it was run: helm, when installed as helm.
func printError(streams genericiooptions.IOStreams, build BuildInfo, err error) {
	msg := err.Error()
	if build.AsHelm {
		msg = strings.NewReplacer("'kubectl chart ", "'helm ", "`kubectl chart ", "`helm ").Replace(msg)
	}
	fmt.Fprintf(streams.ErrOut, "Error: %s\n", redact.Terminal(redact.Credentials(msg)))
	if m := unknownCommand.FindStringSubmatch(msg); m != nil {
		// cobra's hint after a command it cannot find, as Helm prints it.
		fmt.Fprintf(streams.ErrOut, "Run '%s --help' for usage.\n", m[1])
	}
}

// unknownCommand is cobra's error for a command it cannot find; the group is
// the command path it looked under.
var unknownCommand = regexp.MustCompile(`^unknown command ".*" for "([^"]*)"`)

// exitCodeError ends the program with a status of its own (diff
// --detailed-exitcode's 2); err, when set, is printed as any error.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", e.code)
}

func (e *exitCodeError) Unwrap() error { return e.err }
