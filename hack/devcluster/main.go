// Command devcluster builds the pinned control plane and starts or stops the
// developer's cluster (`make dev-cluster`, hack/dev-cluster.sh).
//
//	devcluster build   build the binaries into the cache (no-op when cached)
//	devcluster up      start the dev cluster; the last line is `export KUBECONFIG=...`
//	devcluster down    stop it and wait until no process is left
//	devcluster status  say whether it runs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "devcluster: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("devcluster", flag.ContinueOnError)
	flags.SetOutput(stderr)
	stateDir := flags.String("state", "", "state directory (default ${XDG_STATE_HOME:-$HOME/.local/state}/kubectl-chart/dev-cluster)")
	timeout := flags.Duration("timeout", 3*time.Minute, "how long `up` waits for the cluster to be ready, not counting the build")
	if len(args) == 0 {
		return errors.New("usage: devcluster build|up|down|status [-state DIR]")
	}
	command := args[0]
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if *stateDir == "" {
		dir, err := defaultStateDir()
		if err != nil {
			return err
		}
		*stateDir = dir
	}
	switch command {
	case "build":
		bins, err := cluster.Build(ctx, cluster.BuildOptions{Log: stderr})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "binaries in %s\n", bins.Dir)
		return nil
	case "up":
		return up(ctx, *stateDir, *timeout, stdout, stderr)
	case "down":
		return down(ctx, *stateDir, stderr)
	case "status":
		c, err := cluster.Attach(*stateDir)
		if err != nil || !c.Running() {
			fmt.Fprintln(stdout, "dev cluster: not running")
			return nil
		}
		fmt.Fprintf(stdout, "dev cluster: running at %s\nexport KUBECONFIG=%s\n", c.Server, c.Kubeconfig)
		return nil
	default:
		return fmt.Errorf("unknown command %q: want build, up, down or status", command)
	}
}

func up(ctx context.Context, stateDir string, timeout time.Duration, stdout, stderr io.Writer) error {
	if c, err := cluster.Attach(stateDir); err == nil && c.Running() {
		fmt.Fprintf(stderr, "dev cluster already running at %s\n", c.Server)
		fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
		return nil
	}
	bins, err := cluster.Build(ctx, cluster.BuildOptions{Log: stderr})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Options{Binaries: bins, StateDir: stateDir, Detach: true, Log: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "dev cluster running at %s; logs in %s; stop it with `make dev-cluster-down`\n",
		c.Server, filepath.Join(stateDir, "logs"))
	fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
	return nil
}

func down(ctx context.Context, stateDir string, stderr io.Writer) error {
	c, err := cluster.Attach(stateDir)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(stderr, "dev cluster: not running")
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.Stop(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "dev cluster stopped")
	return nil
}

func defaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find home directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "kubectl-chart", "dev-cluster"), nil
}
