package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
)

// pluginArgs are a plugin's command line split as Helm splits it: the global
// flags this program consumes (and hands to the plugin through its
// environment) and the arguments the plugin receives.
type pluginArgs struct {
	// connection are kubectl's connection flags (and Helm's names for them),
	// parsed into the root command's flags.
	connection []string
	debug      bool
	// registryConfig, repositoryConfig and repositoryCache are Helm's flags
	// of those names; "" when not given.
	registryConfig, repositoryConfig, repositoryCache string
	// rest is passed to the plugin.
	rest []string
}

// isPluginConnectionFlag reports the connection flags taken from a plugin's
// command line because Helm's plugin environment carries them: Helm's own names
// and kubectl's for the same settings. Other flags reach the plugin, as in Helm.
func isPluginConnectionFlag(name string) bool {
	switch name {
	case "--namespace", "-n", "--kubeconfig", "--kube-context", "--context", "--kube-apiserver", "--server",
		"--kube-token", "--token", "--kube-as-user", "--as", "--kube-as-group", "--as-group",
		"--kube-ca-file", "--certificate-authority", "--kube-tls-server-name", "--tls-server-name",
		"--kube-insecure-skip-tls-verify":
		return true
	}
	return false
}

// splitPluginArgs separates the global flags from a plugin's arguments. A
// flag's value is the next argument or follows '='.
func splitPluginArgs(args []string) pluginArgs {
	var out pluginArgs
	settings := map[string]*string{
		"--registry-config": &out.registryConfig, "--repository-config": &out.repositoryConfig,
		"--repository-cache": &out.repositoryCache,
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--debug":
			out.debug = true
		case isPluginConnectionFlag(name):
			if name == "--kube-insecure-skip-tls-verify" && !hasValue {
				// A boolean: its value only ever follows '='.
				out.connection = append(out.connection, a)
				continue
			}
			if !hasValue && i+1 < len(args) {
				i++
				a += "=" + args[i]
			}
			out.connection = append(out.connection, a)
		case settings[name] != nil:
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			*settings[name] = value
		default:
			out.rest = append(out.rest, a)
		}
	}
	return out
}

// pluginRunner runs cli/v1 plugins with Helm's plugin environment.
type pluginRunner struct {
	cfg     pluginConfig
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams
}

// run runs p with args (the plugin's command line as typed): global flags
// become Helm's environment variables, the rest are the plugin's arguments, and
// the plugin's exit status becomes this program's.
func (r pluginRunner) run(cmd *cobra.Command, reg *plugin.Registry, p *plugin.Plugin, args []string) error {
	split := splitPluginArgs(args)
	if len(split.connection) > 0 {
		if err := cmd.Root().PersistentFlags().Parse(split.connection); err != nil {
			return err
		}
	}
	if f := cmd.Root().PersistentFlags().Lookup("debug"); f != nil && f.Value.String() == "true" {
		split.debug = true
	}
	inv, err := reg.Prepare(p, plugin.Host(), split.rest, r.env(split))
	if err != nil {
		return err
	}
	return runPlugin(cmd.Context(), p.Name, inv, r.streams)
}

// runPlugin runs a prepared plugin; a plugin that fails with a status ends this
// program with the same status, as in Helm.
func runPlugin(ctx context.Context, name string, inv *plugin.Invocation, streams genericiooptions.IOStreams) error {
	err := plugin.Exec(ctx, name, inv, streams.In, streams.Out, streams.ErrOut)
	var exitErr *plugin.ExitError
	if errors.As(err, &exitErr) {
		return &exitCodeError{code: exitErr.Code, err: fmt.Errorf("plugin %q exited with error", name)}
	}
	return err
}

// env is Helm's plugin environment (what `helm env` prints) for this
// invocation, and this program's names for the binary.
func (r pluginRunner) env(a pluginArgs) map[string]string {
	getenv := r.cfg.getenv
	home := func(helmVar, xdgVar string) string {
		if v := getenv(helmVar); v != "" {
			return v
		}
		return filepath.Join(r.cfg.env()(xdgVar), "helm")
	}
	orDefault := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	cacheHome := home("HELM_CACHE_HOME", "XDG_CACHE_HOME")
	files := loadHelmFiles(getenv, loadXDG(getenv, func() (string, error) { return r.cfg.home, nil }))
	env := map[string]string{
		"HELM_CACHE_HOME":        cacheHome,
		"HELM_CONFIG_HOME":       home("HELM_CONFIG_HOME", "XDG_CONFIG_HOME"),
		"HELM_DATA_HOME":         home("HELM_DATA_HOME", "XDG_DATA_HOME"),
		"HELM_CONTENT_CACHE":     orDefault("HELM_CONTENT_CACHE", filepath.Join(cacheHome, "content")),
		"HELM_DEBUG":             strconv.FormatBool(a.debug),
		"HELM_PLUGINS":           r.cfg.installDir(),
		"HELM_REGISTRY_CONFIG":   firstNonEmpty(a.registryConfig, files.registryConfig),
		"HELM_REPOSITORY_CONFIG": firstNonEmpty(a.repositoryConfig, files.repositoryConfig),
		"HELM_REPOSITORY_CACHE":  firstNonEmpty(a.repositoryCache, files.repositoryCache),
		"HELM_MAX_HISTORY":       orDefault("HELM_MAX_HISTORY", "10"),
		"HELM_BURST_LIMIT":       orDefault("HELM_BURST_LIMIT", "100"),
		"HELM_QPS":               orDefault("HELM_QPS", "0.00"),
		"HELM_NAMESPACE":         "default",
	}
	if exe, err := os.Executable(); err == nil {
		env["HELM_BIN"] = exe
		env["KUBECTL_CHART_BIN"] = exe
	}
	f := r.flags
	if f == nil {
		return env
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if ns, _, err := f.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		env["HELM_NAMESPACE"] = ns
	} else if v := str(f.Namespace); v != "" {
		env["HELM_NAMESPACE"] = v
	}
	env["HELM_KUBECONTEXT"] = str(f.Context)
	env["HELM_KUBETOKEN"] = str(f.BearerToken)
	env["HELM_KUBEAPISERVER"] = str(f.APIServer)
	env["HELM_KUBECAFILE"] = str(f.CAFile)
	env["HELM_KUBETLS_SERVER_NAME"] = str(f.TLSServerName)
	env["HELM_KUBEASUSER"] = str(f.Impersonate)
	env["HELM_KUBEINSECURE_SKIP_TLS_VERIFY"] = strconv.FormatBool(f.Insecure != nil && *f.Insecure)
	env["HELM_KUBEASGROUPS"] = ""
	if f.ImpersonateGroup != nil {
		env["HELM_KUBEASGROUPS"] = strings.Join(*f.ImpersonateGroup, ",")
	}
	if v := str(f.KubeConfig); v != "" {
		env["KUBECONFIG"] = v
	}
	return env
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
