package hostproc

import (
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no process probe here")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		prereq.Missing(t, "true: %v", err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("a process that exited (pid %d) is alive", cmd.Process.Pid)
	}
}

func TestBootID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("boot ids are read on Linux")
	}
	if a, b := BootID(), BootID(); a == "" || a != b {
		t.Errorf("boot id %q, then %q", a, b)
	}
}
