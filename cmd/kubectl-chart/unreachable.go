package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/spf13/cobra"
)

// errClusterUnreachable prefixes, in Helm's words, a failure to connect to the
// cluster's API server.
var errClusterUnreachable = errors.New("kubernetes cluster unreachable")

// clusterUnreachable says, as Helm does, that the cluster is unreachable when
// err is a failed connection to server (the error names its URL).
func clusterUnreachable(err error, server string) error {
	var ue *url.Error
	var op *net.OpError
	if err == nil || server == "" || errors.Is(err, errClusterUnreachable) || !errors.As(err, &ue) || !errors.As(ue.Err, &op) || op.Op != "dial" {
		return err
	}
	u, perr := url.Parse(ue.URL)
	s, serr := url.Parse(server)
	if perr != nil || serr != nil || u.Host != s.Host {
		return err
	}
	return fmt.Errorf("%w: %w", errClusterUnreachable, err)
}

// explainUnreachable makes the errors of every command under cmd say when the
// cluster f connects to is unreachable.
func explainUnreachable(cmd *cobra.Command, f Factory) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			err := run(c, args)
			var ue *url.Error
			if err == nil || !errors.As(err, &ue) {
				return err
			}
			server, serr := f.ServerURL()
			if serr != nil {
				return err
			}
			return clusterUnreachable(err, server)
		}
	}
	for _, c := range cmd.Commands() {
		explainUnreachable(c, f)
	}
}
