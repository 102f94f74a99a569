package main

import (
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// addGlobalFlags adds Helm's global flags, hidden, with Helm's meaning: they
// set s, which the factory reads after parsing. Commands that read one of
// these files have their own flag of the same name, which shadows the global
// one; applySettings gives it the same default.
func addGlobalFlags(fs *pflag.FlagSet, s *settings) {
	hidden := func(name string) { _ = fs.MarkHidden(name) }
	fs.StringVar(&s.files.repositoryConfig, "repository-config", s.files.repositoryConfig, "path to the file containing repository names and URLs")
	fs.StringVar(&s.files.repositoryCache, "repository-cache", s.files.repositoryCache, "path to the directory containing cached repository indexes")
	fs.StringVar(&s.files.registryConfig, "registry-config", s.files.registryConfig, "path to the registry config file")
	fs.StringVar(&s.files.contentCache, contentCacheFlag, s.files.contentCache, "Helm 4 only: path to the directory of cached content (e.g. charts)")
	fs.IntVar(&s.limits.burstLimit, "burst-limit", s.limits.burstLimit, "client-side default throttling limit")
	fs.Float32Var(&s.limits.qps, "qps", s.limits.qps, "queries per second used when communicating with the Kubernetes API, not including bursting")
	fs.BoolVar(&s.limits.debug, "debug", s.limits.debug, "enable verbose output (-v 4)")
	fs.StringVar(&s.colorMode, "color", s.colorMode, "use colored output (never, auto, always)")
	fs.StringVar(&s.colorMode, "colour", s.colorMode, "use colored output (never, auto, always)")
	fs.IntVarP(&s.log.verbosity, "v", "v", 0, "number for the log level verbosity (kubectl's -v: 4 debug, 6 API requests)")
	for _, n := range []string{"repository-config", "repository-cache", "registry-config", contentCacheFlag, "color", "colour", "burst-limit", "qps", "debug"} {
		hidden(n)
	}
	helmOnly(fs, dialect.Helm4, helm4Globals()...)
}

// showHelmGlobals makes the global flags that help lists Helm's own, as
// installed as helm: kubectl's names and ours stay accepted but hidden, and
// Helm's names for kubectl's flags are shown (Helm 4 adds --content-cache).
func showHelmGlobals(fs *pflag.FlagSet, d dialect.Dialect) {
	helm := map[string]bool{
		"burst-limit": true, "debug": true, "kube-apiserver": true, "kube-as-group": true, "kube-as-user": true,
		"kube-ca-file": true, "kube-context": true, "kube-insecure-skip-tls-verify": true, "kube-tls-server-name": true,
		"kube-token": true, "kubeconfig": true, "namespace": true, "qps": true, "registry-config": true,
		"repository-cache": true, "repository-config": true,
		contentCacheFlag: d.IsHelm4(), "color": d.IsHelm4(), "colour": d.IsHelm4(),
	}
	fs.VisitAll(func(f *pflag.Flag) { f.Hidden = !helm[f.Name] })
}

// settingsDefault is a flag value whose default comes from the settings.
type settingsDefault interface{ defaultFrom(s *settings) }

// applySettings makes the settings the defaults of the flags of every command
// under cmd that take them: the files' paths, --history-max ($HELM_MAX_HISTORY),
// --keyring and the values that read settings themselves (--compat).
func applySettings(cmd *cobra.Command, s *settings) {
	defaults := map[string]string{
		"repository-config": s.files.repositoryConfig, "repository-cache": s.files.repositoryCache,
		"registry-config": s.files.registryConfig, contentCacheFlag: s.files.contentCache, "keyring": s.keyring,
		"history-max": strconv.Itoa(s.limits.maxHistory),
	}
	var apply func(c *cobra.Command, inherited map[*pflag.Flag]bool)
	apply = func(c *cobra.Command, inherited map[*pflag.Flag]bool) {
		// c's own non-persistent flags, as c.LocalNonPersistentFlags() has
		// them without merging the persistent flags of c and its parents into
		// a new set for every command (milliseconds at every start-up).
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if inherited[f] || c.PersistentFlags().Lookup(f.Name) == f {
				return
			}
			if d, ok := f.Value.(settingsDefault); ok {
				d.defaultFrom(s)
				return
			}
			if v, ok := defaults[f.Name]; ok && !f.Changed {
				if err := f.Value.Set(v); err == nil {
					f.DefValue = v
				}
			}
		})
		if c.HasPersistentFlags() {
			inherited = maps.Clone(inherited)
			c.PersistentFlags().VisitAll(func(f *pflag.Flag) { inherited[f] = true })
		}
		for _, sub := range c.Commands() {
			apply(sub, inherited)
		}
	}
	apply(cmd, map[*pflag.Flag]bool{})
}

// contentCacheFlag is Helm 4's --content-cache, which Helm 3 does not know.
const contentCacheFlag = "content-cache"

// helm4Globals are Helm 4's global flags that Helm 3 does not know.
func helm4Globals() []string { return []string{contentCacheFlag, "color", "colour"} }

// colorModeError is Helm 4's refusal of a color mode (--color, --colour,
// else $HELM_COLOR), which it checks before any command runs, on the flags
// of the whole command line read ahead: even before --help or an unknown
// command. Our output has no colors: every mode prints as never.
func colorModeError(args []string, envMode string) error {
	fs := pflag.NewFlagSet("color", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	mode := envMode
	fs.StringVar(&mode, "color", mode, "")
	fs.StringVar(&mode, "colour", mode, "")
	// A bare --color is diff's own (helm-diff's switch): it takes no value
	// here, where Helm 4 would take the next word for one.
	for _, name := range []string{"color", "colour"} {
		fs.Lookup(name).NoOptDefVal = envMode
	}
	_ = fs.Parse(args)
	switch mode {
	case "never", "auto", "always":
		return nil
	}
	return fmt.Errorf("invalid color mode %q: must be one of: never, auto, always", mode)
}

// envColorMode is Helm 4's color mode from the environment: never with
// $NO_COLOR, else $HELM_COLOR when it is a mode, else auto.
func envColorMode(getenv func(string) string) string {
	if getenv("NO_COLOR") != "" {
		return "never"
	}
	switch v := strings.ToLower(getenv("HELM_COLOR")); v {
	case "never", "auto", "always":
		return v
	}
	return "auto"
}

// refuseHelm4GlobalsFirst has the commands under root refuse Helm 4's global
// flags in the Helm 3 dialect before they check their arguments: Helm 3's flag
// parsing fails on them before its commands look at arguments. (The root keeps
// cobra's own check of its arguments, which finds subcommands.)
func refuseHelm4GlobalsFirst(root *cobra.Command, s *settings) {
	for _, cmd := range root.Commands() {
		args := cmd.Args
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := refuseHelm4Globals(c, s); err != nil {
				return err
			}
			if args == nil {
				return nil
			}
			return args(c, a)
		}
		refuseHelm4GlobalsFirst(cmd, s)
	}
}

// refuseHelm4Globals refuses Helm 4's global flags on a command whose
// dialect is Helm 3's, with Helm 3's words for a flag it does not know. The
// dialect is the command's --compat, else $KUBECTL_CHART_COMPAT; a command
// that decides its dialect later (upgrade) accepts them.
func refuseHelm4Globals(cmd *cobra.Command, s *settings) error {
	given := ""
	for _, name := range helm4Globals() {
		if cmd.Flags().Changed(name) {
			given = name
			break
		}
	}
	if given == "" {
		return nil
	}
	var d dialect.Dialect
	if f := cmd.Flags().Lookup("compat"); f != nil {
		if v, ok := f.Value.(compatValue); ok {
			d, _ = v.c.Dialect()
		}
	} else if s.compat != "" {
		d, _ = dialect.Parse(s.compat)
	}
	if d == dialect.Helm3 {
		return fmt.Errorf("unknown flag: --%s", given)
	}
	return nil
}
