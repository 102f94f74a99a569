package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// NewCmdEnv builds `kubectl chart env`, which prints the settings in use under
// Helm's names, as `helm env` does, for the dialect --compat names.
func NewCmdEnv(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the settings in use, as helm env does",
		Long: `Print the settings in use under Helm's names (HELM_NAMESPACE="default" ...), or
the value of the one NAME.`,
		Args: maximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			vars := helmEnv(flags, f, d)
			if len(args) == 1 {
				fmt.Fprintln(streams.Out, vars[args[0]])
				return nil
			}
			names := make([]string, 0, len(vars))
			for k := range vars {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				fmt.Fprintf(streams.Out, "%s=%q\n", k, vars[k])
			}
			return nil
		},
	}
	compat.AddFlags(cmd.Flags(), dialect.Helm4)
	return cmd
}

// helmEnv is the settings in use under Helm's names, as d's `helm env` prints them.
func helmEnv(flags *genericclioptions.ConfigFlags, f Factory, d dialect.Dialect) map[string]string {
	s := f.Settings()
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	var groups []string
	if flags.ImpersonateGroup != nil {
		groups = *flags.ImpersonateGroup
	}
	bin, _ := os.Executable()
	vars := map[string]string{
		"HELM_BIN":                          bin,
		"HELM_BURST_LIMIT":                  strconv.Itoa(s.limits.burstLimit),
		"HELM_CACHE_HOME":                   s.files.cacheHome,
		"HELM_CONFIG_HOME":                  s.files.configHome,
		"HELM_DATA_HOME":                    s.files.dataHome,
		"HELM_DEBUG":                        strconv.FormatBool(s.limits.debug),
		"HELM_KUBEAPISERVER":                str(flags.APIServer),
		"HELM_KUBEASGROUPS":                 strings.Join(groups, ","),
		"HELM_KUBEASUSER":                   str(flags.Impersonate),
		"HELM_KUBECAFILE":                   str(flags.CAFile),
		"HELM_KUBECONTEXT":                  str(flags.Context),
		"HELM_KUBEINSECURE_SKIP_TLS_VERIFY": strconv.FormatBool(flags.Insecure != nil && *flags.Insecure),
		"HELM_KUBETLS_SERVER_NAME":          str(flags.TLSServerName),
		"HELM_KUBETOKEN":                    str(flags.BearerToken),
		"HELM_MAX_HISTORY":                  strconv.Itoa(s.limits.maxHistory),
		"HELM_NAMESPACE":                    f.Namespace(),
		"HELM_PLUGINS":                      s.files.plugins,
		"HELM_QPS":                          strconv.FormatFloat(float64(s.limits.qps), 'f', 2, 32),
		"HELM_REGISTRY_CONFIG":              s.files.registryConfig,
		"HELM_REPOSITORY_CACHE":             s.files.repositoryCache,
		"HELM_REPOSITORY_CONFIG":            s.files.repositoryConfig,
	}
	if d == dialect.Helm4 {
		vars["HELM_CONTENT_CACHE"] = s.files.contentCache
	}
	return vars
}
