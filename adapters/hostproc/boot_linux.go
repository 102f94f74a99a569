//go:build linux

package hostproc

import (
	"os"
	"strings"
)

// BootID identifies this boot of this machine (random per boot), so that a
// process id is only compared with processes of the same machine and boot;
// "" when unknown.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
