package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// component is one control-plane process started by this process.
type component struct {
	name string
	path string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd.Wait returns: the process is reaped
	err  error         // cmd.Wait's result, set before done is closed

	// What started it, to start it again (Cluster.Restart).
	args, env []string
	detach    bool
}

// startComponent starts path with args, its output appended to
// logDir/<name>.log. A detached component gets its own session so it outlives
// this process and the terminal; otherwise it dies with this process.
func startComponent(name, path string, args, env []string, logDir string, detach bool) (*component, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	// The child holds its own descriptor; a file rather than a pipe keeps a
	// detached component writing after this process is gone.
	defer logFile.Close()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr(detach)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &component{name: name, path: path, log: logPath, cmd: cmd, done: make(chan struct{}), args: args, env: env, detach: detach}
	// Waiting reaps the child at once: an unreaped child is a zombie that
	// still answers kill -0.
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// restart starts the component again, as it was first started, once it has
// exited; its log is appended to.
func (c *component) restart() (*component, error) {
	select {
	case <-c.done:
	default:
		return nil, fmt.Errorf("restart %s: it is still running (pid %d)", c.name, c.cmd.Process.Pid)
	}
	return startComponent(c.name, c.path, c.args, c.env, filepath.Dir(c.log), c.detach)
}

// kill ends the component at once (SIGKILL) and waits until it is reaped.
func (c *component) kill() error {
	_ = c.cmd.Process.Kill()
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", c.name, c.cmd.Process.Pid)
	}
}

// exited describes how a component ended, with the end of its log.
func (c *component) exited() error {
	return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", c.name, c.err, c.log, tailFile(c.log, 30))
}

// stop terminates the component and waits until it is reaped: SIGTERM, then
// SIGKILL after grace.
func (c *component) stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(grace):
	}
	_ = c.cmd.Process.Kill()
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", c.name, c.cmd.Process.Pid)
	}
}

// record is what the state directory keeps of a component so that another
// process (`dev-cluster.sh down`) can stop it.
type record struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	Path string `json:"path"`
}

func (c *component) record() record {
	return record{Name: c.name, PID: c.cmd.Process.Pid, Path: c.path}
}

// stopRecord stops a component started by another process, by PID. It only
// signals a process still running the recorded binary, so a reused PID is
// left alone.
func stopRecord(r record, grace time.Duration) error {
	if !running(r) {
		return nil
	}
	if err := syscall.Kill(r.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s (pid %d): %w", r.Name, r.PID, err)
	}
	if waitGone(r, grace) {
		return nil
	}
	if err := syscall.Kill(r.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s (pid %d): %w", r.Name, r.PID, err)
	}
	if waitGone(r, 10*time.Second) {
		return nil
	}
	return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", r.Name, r.PID)
}

func waitGone(r record, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for running(r) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
