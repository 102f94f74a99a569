package generator

// Restriction names a class of differences that another line of work owns; while a
// restriction is on, the generator does not draw the cases of its class. Each is a TODO:
// drop it when its owner has fixed the class (run with -unrestricted to see them).
type Restriction string

// The restrictions and the classes they hold back.
const (
	// TODO(cli): lint reports Chart.yaml problems with a line number (`Chart.yaml:4:`) and a
	// chart that fails to load as `[ERROR] : unable to load chart: ...` where Helm prints
	// `[ERROR] Chart.yaml: ...` and `[ERROR] values.yaml: unable to parse YAML: ...`.
	CLILintTexts Restriction = "cli-lint-texts"
)

// AllRestrictions are on by default.
var AllRestrictions = []Restriction{
	CLILintTexts,
}

// WithRestrictions returns the generator with only the given restrictions on.
func (g Generator) WithRestrictions(rs []Restriction) Generator {
	g.restrict = map[Restriction]bool{}
	for _, r := range rs {
		g.restrict[r] = true
	}
	return g
}

func (d *draw) restricted(r Restriction) bool { return d.restrict[r] }
