package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// cmdLineError is an error Helm reports while it parses the command line,
// before the command runs: an unknown flag, a flag's bad value. Helm prints
// it as it is, never as the operation's failure ("INSTALLATION FAILED: ...").
type cmdLineError struct{ error }

func (e cmdLineError) Unwrap() error { return e.error }

// isCmdLineError reports whether err is a cmdLineError.
func isCmdLineError(err error) bool {
	var c cmdLineError
	return errors.As(err, &c)
}

// errInvalidFormat is the refusal of a -o value, in both Helms' words.
var errInvalidFormat = errors.New("invalid format type")

// validateOutput checks -o as both Helms' output flag does.
func validateOutput(o string) error {
	if err := checkFormat(o); err != nil {
		return cmdLineError{fmt.Errorf("invalid argument %q for \"-o, --output\" flag: %w", o, err)}
	}
	return nil
}

// checkFormat refuses a -o value Helm's output flag does not know, as its
// parsing does (pflag adds `invalid argument "S" for "-o, --output" flag: `).
func checkFormat(o string) error {
	switch o {
	case "table", "json", "yaml":
		return nil
	}
	return errInvalidFormat
}

// outputValue is Helm's -o: its parsing refuses a format Helm's output flag
// does not know, before --help or the arguments are looked at.
type outputValue struct{ p *string }

func (v outputValue) String() string { return *v.p }
func (v outputValue) Type() string   { return "format" }

func (v outputValue) Set(s string) error {
	if err := checkFormat(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

// dialectOnlyFlags are flags of a command that one Helm has and the other
// lacks (Helm 4 renamed --atomic and --force, and dropped rollback's
// --recreate-pods and status's --show-desc): in the dialect that lacks one,
// the flag is unknown, in Helm's words, whatever else the command line says.
type dialectOnlyFlags struct {
	// given are the flags given, in command-line order.
	given []dialectOnlyValue
}

// dialectOnlyValue is a flag's value that records that it was given: a
// flag of dialect in, or (in "") one whose value check refuses as Helm
// refuses it while parsing, in command-line order with the others.
type dialectOnlyValue struct {
	pflag.Value
	name string
	in   dialect.Dialect
	// deprecation is what dialect in's Helm says of the flag, deprecated there.
	deprecation string
	check       func(string) error
	err         error
	given       *[]dialectOnlyValue
}

func (v dialectOnlyValue) Set(s string) error {
	if v.check != nil {
		v.err = v.check(s)
	}
	*v.given = append(*v.given, v)
	return v.Value.Set(s)
}

// only marks fs's flags names as the dialect in's alone when the program is
// installed as helm; as kubectl chart every dialect keeps them (ours).
func (o *dialectOnlyFlags) only(s *settings, fs *pflag.FlagSet, in dialect.Dialect, names ...string) {
	if !s.asHelm {
		return
	}
	helmOnly(fs, in, names...)
	for _, name := range names {
		f := fs.Lookup(name)
		f.Value = dialectOnlyValue{Value: f.Value, name: name, in: in, given: &o.given}
	}
}

// deprecatedIn records what the Helm of fs's dialect-only flag name says
// of it, deprecated there.
func (o *dialectOnlyFlags) deprecatedIn(fs *pflag.FlagSet, name, deprecation string) {
	if v, ok := fs.Lookup(name).Value.(dialectOnlyValue); ok {
		v.deprecation = deprecation
		fs.Lookup(name).Value = v
	}
}

// checked has fs's flag name's values checked by check, in command-line
// order with the dialect's flags.
func (o *dialectOnlyFlags) checked(fs *pflag.FlagSet, name string, check func(string) error) {
	f := fs.Lookup(name)
	f.Value = dialectOnlyValue{Value: f.Value, name: name, check: check, given: &o.given}
}

// check refuses the first flag given that dialect d's Helm lacks, or whose
// value it refuses.
func (o *dialectOnlyFlags) check(d dialect.Dialect) error {
	for _, v := range o.given {
		switch {
		case v.check != nil:
			if v.err != nil {
				return v.err
			}
		case v.in.IsHelm4() != d.IsHelm4():
			return cmdLineError{fmt.Errorf("unknown flag: --%s", v.name)}
		}
	}
	return nil
}

// commandDialect is the dialect of a command without --compat: the Helm
// that $KUBECTL_CHART_COMPAT names, else Helm 4.
func commandDialect(s *settings) dialect.Dialect {
	if d, err := dialect.Parse(s.compat); err == nil {
		return d
	}
	return dialect.Default
}
