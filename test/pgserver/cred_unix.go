//go:build unix

package pgserver

import (
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// credential is the user the server runs as; nil runs it as this process.
type credential struct{ uid, gid uint32 }

// serverCredential is nil unless this process is root, which initdb refuses:
// then the system user postgres, else nobody.
func serverCredential() (*credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var last error
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			last = err
			continue
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		return &credential{uint32(uid), uint32(gid)}, nil
	}
	return nil, last
}

func (c *credential) own(paths ...string) error {
	if c == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(c.uid), int(c.gid)); err != nil {
			return err
		}
	}
	return nil
}

func (c *credential) sysProcAttr() *syscall.SysProcAttr {
	a := pdeathsig()
	if c != nil {
		a.Credential = &syscall.Credential{Uid: c.uid, Gid: c.gid, NoSetGroups: true}
	}
	return a
}
