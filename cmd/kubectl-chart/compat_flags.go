package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// compatFlags is --compat, the Helm release whose rendering rules a command follows
// (helm4 or helm3). Without the flag $KUBECTL_CHART_COMPAT decides, then the
// command's default; Dialect is the one place that reads the variable.
type compatFlags struct {
	value string
	// def is the command's default; "" leaves the choice to the command (an
	// upgrade keeps the dialect of the release it upgrades).
	def dialect.Dialect
	// getenv reads the environment; nil is os.Getenv.
	getenv func(string) string
}

// AddFlags adds --compat to fs with the command's default.
func (c *compatFlags) AddFlags(fs *pflag.FlagSet, def dialect.Dialect) {
	c.def = def
	usage := fmt.Sprintf("render as this Helm release does: %q (Helm v4.3.1) or %q (Helm v3.22.0); default $%s, else ",
		dialect.Helm4, dialect.Helm3, dialect.EnvVar)
	if def == "" {
		usage += "helm4 for install and, for upgrade, the dialect of the release (helm3 for releases recorded before dialects existed)"
	} else {
		usage += string(def)
	}
	fs.StringVar(&c.value, "compat", "", usage)
}

// Dialect is the dialect chosen by the flag, else by the environment, else the
// command's default ("" when the command decides).
func (c *compatFlags) Dialect() (dialect.Dialect, error) {
	if c.value != "" {
		d, err := dialect.Parse(c.value)
		if err != nil {
			return "", fmt.Errorf("--compat: %w", err)
		}
		return d, nil
	}
	getenv := c.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := getenv(dialect.EnvVar); v != "" {
		d, err := dialect.Parse(v)
		if err != nil {
			return "", fmt.Errorf("$%s: %w", dialect.EnvVar, err)
		}
		return d, nil
	}
	return c.def, nil
}
