package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
)

// crdsFlag is --crds: what install and upgrade do with the chart's crds/
// (--skip-crds is --crds skip).
type crdsFlag struct {
	value string
	fs    *pflag.FlagSet
}

func (c *crdsFlag) AddFlags(fs *pflag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.value, "crds", string(action.CRDsCreate), `what to do with the chart's crds/: "create" creates missing CRDs on install and leaves existing ones (Helm's behaviour), `+
		`"upgrade" also applies changed CRDs on install and upgrade, refused when that could lose data (a stored version dropped or no longer served, an existing object invalid under the new schema), "skip" leaves them alone (as --skip-crds)`)
}

// policy reads --crds with --skip-crds.
func (c *crdsFlag) policy(skip bool) (action.CRDPolicy, error) {
	p, err := action.ParseCRDPolicy(c.value)
	if err != nil {
		return "", err
	}
	if skip && c.fs != nil && c.fs.Changed("crds") && p != action.CRDsSkip {
		return "", fmt.Errorf("--skip-crds contradicts --crds %s", p)
	}
	if skip {
		return action.CRDsSkip, nil
	}
	return p, nil
}

// crdPolicy is the policy --crds and --skip-crds ask for (validate checked them).
func (d *deployFlags) crdPolicy() action.CRDPolicy {
	p, _ := d.crds.policy(d.skipCRDs)
	return p
}
