package cmdtree

// rule is a known, intended difference from Helm, by its name in README.md's
// "Intended differences from Helm".
type rule struct {
	name  string
	apply func(p Probe, helm, ours *Outcome)
}

// rules are the documented differences this axis can meet.
func rules() []rule {
	return nil
}
