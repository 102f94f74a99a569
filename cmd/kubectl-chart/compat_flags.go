package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// compatFlags is --compat, the Helm release whose rendering rules a command follows
// (helm4 or helm3). Without the flag $KUBECTL_CHART_COMPAT decides, then the
// command's default.
type compatFlags struct {
	value string
	// def is the command's default; "" leaves the choice to the command (an
	// upgrade keeps the dialect of the release it upgrades).
	def dialect.Dialect
	// env is $KUBECTL_CHART_COMPAT, from the settings (applySettings).
	env string
}

// compatValue is --compat's value, which takes $KUBECTL_CHART_COMPAT from the
// settings.
type compatValue struct{ c *compatFlags }

func (v compatValue) String() string          { return v.c.value }
func (v compatValue) Set(s string) error      { v.c.value = s; return nil }
func (v compatValue) Type() string            { return "string" }
func (v compatValue) defaultFrom(s *settings) { v.c.env = s.compat }

// AddFlags adds --compat to fs with the command's default.
func (c *compatFlags) AddFlags(fs *pflag.FlagSet, def dialect.Dialect) {
	c.def = def
	usage := fmt.Sprintf("render as this Helm release does: %q (Helm v4.3.1) or %q (Helm v3.22.0); default $%s, else ",
		dialect.Helm4, dialect.Helm3, dialect.EnvVar)
	if def == "" {
		usage += "helm4 for install and, for upgrade, the dialect of the release's latest revision (helm4 when it records an apply method, as Helm 4 does, else helm3)"
	} else {
		usage += string(def)
	}
	fs.Var(compatValue{c}, "compat", usage)
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
	if v := c.env; v != "" {
		d, err := dialect.Parse(v)
		if err != nil {
			return "", fmt.Errorf("$%s: %w", dialect.EnvVar, err)
		}
		return d, nil
	}
	return c.def, nil
}

// addReadingCompat adds --compat, hidden, to a command without a dialect of its own in
// Helm that reads charts (show, package): it carries $KUBECTL_CHART_COMPAT from the
// settings (applySettings), since Helm 4 reads a chart's values.yaml by its own rules.
func (c *compatFlags) addReadingCompat(fs *pflag.FlagSet) {
	c.AddFlags(fs, dialect.Default)
	_ = fs.MarkHidden("compat")
}
