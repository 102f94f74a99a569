package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Environment variables the release commands read, all in loadSettings.
const (
	// StorageEnv sets the default of --storage.
	StorageEnv = "KUBECTL_CHART_STORAGE"
	// BboltPathEnv sets the default of --bbolt-path.
	BboltPathEnv = "KUBECTL_CHART_BBOLT_PATH"
	// SQLConnectionEnv is the connection string of --storage sql, Helm's
	// variable; SQLConnectionOwnEnv, ours, wins over it.
	SQLConnectionEnv    = "HELM_DRIVER_SQL_CONNECTION_STRING"
	SQLConnectionOwnEnv = "KUBECTL_CHART_SQL_CONNECTION_STRING"
	// LeaseDurationEnv overrides the release lock's lease duration (tests use a short one).
	LeaseDurationEnv = "KUBECTL_CHART_LOCK_DURATION"
)

// settings are what the environment says about releases, read once, when the
// root command is built.
type settings struct {
	// storage holds the defaults of --storage and --bbolt-path.
	storage StorageSettings
	// leaseDuration is $KUBECTL_CHART_LOCK_DURATION, 0 when unset; leaseErr
	// says why it could not be read, which only the commands that lock report.
	leaseDuration time.Duration
	leaseErr      error
	// user is $USER, which names this process in release locks when the
	// user database does not.
	user string
	// kube holds Helm's environment for reaching the cluster ($HELM_NAMESPACE,
	// $HELM_KUBECONTEXT ...): the defaults of kubectl's connection flags.
	kube kubeDefaults
	// files are the repository, registry and starter files, shared with Helm
	// (settings_helm.go); limits are Helm's $HELM_MAX_HISTORY ...
	files  helmFiles
	limits helmLimits
	// compat is $KUBECTL_CHART_COMPAT, the dialect when --compat is not given.
	compat string
	// colorMode is Helm 4's --color: $NO_COLOR, $HELM_COLOR, else auto.
	colorMode string
	// externalDiff is $KUBECTL_EXTERNAL_DIFF, the program diff shows changes with.
	externalDiff string
	// log is -v and where records go (debug_log.go).
	log logging
	// keyring is the default of --keyring: $GNUPGHOME/pubring.gpg, else ~/.gnupg's.
	keyring string
	// chartV3 is Helm 4's experimental gate for chart API v3, $HELM_EXPERIMENTAL_CHART_V3.
	chartV3 bool
	// asHelm: the binary runs under the name helm (BuildInfo.AsHelm), where
	// only what Helm prints reaches a stream that is not a terminal.
	asHelm bool
	// plugins locates the plugins; plugins.yaml and plugin commands expand
	// the environment's variables through it.
	plugins pluginConfig
}

// kubeDefaults are the defaults of kubectl's connection flags that Helm's
// environment sets; "" leaves a flag's own default.
type kubeDefaults struct {
	namespace, context, token, apiServer, caFile, tlsServerName, asUser string
	asGroups                                                            []string
	insecureSkipTLSVerify                                               bool
}

// helmDrivers maps $HELM_DRIVER's values to --storage's.
func helmDriver(v string) string {
	switch v {
	case "secret", "secrets":
		return storageSecret
	case "configmap", "configmaps":
		return storageConfigMap
	}
	return v
}

// loadSettings reads the environment through getenv; homeDir locates the
// default bbolt file when $XDG_DATA_HOME is unset.
func loadSettings(getenv func(string) string, homeDir func() (string, error)) settings {
	s := settings{
		storage: StorageSettings{Driver: getenv(StorageEnv), BboltPath: getenv(BboltPathEnv), SQLConnection: getenv(SQLConnectionOwnEnv)},
		user:    getenv("USER"),
	}
	if s.storage.SQLConnection == "" {
		s.storage.SQLConnection = getenv(SQLConnectionEnv)
	}
	if s.storage.Driver == "" {
		// Ours wins over Helm's.
		s.storage.Driver = helmDriver(getenv("HELM_DRIVER"))
	}
	if s.storage.Driver == "" {
		s.storage.Driver = storageSecret
	}
	s.kube = kubeDefaults{
		namespace: getenv("HELM_NAMESPACE"), context: getenv("HELM_KUBECONTEXT"), token: getenv("HELM_KUBETOKEN"),
		apiServer: getenv("HELM_KUBEAPISERVER"), caFile: getenv("HELM_KUBECAFILE"),
		tlsServerName: getenv("HELM_KUBETLS_SERVER_NAME"), asUser: getenv("HELM_KUBEASUSER"),
		insecureSkipTLSVerify: getenv("HELM_KUBEINSECURE_SKIP_TLS_VERIFY") == "true",
	}
	if g := getenv("HELM_KUBEASGROUPS"); g != "" {
		s.kube.asGroups = strings.Split(g, ",")
	}
	if s.storage.BboltPath == "" {
		s.storage.BboltPath = defaultBboltPath(getenv("XDG_DATA_HOME"), homeDir)
	}
	s.files = loadHelmFiles(getenv, loadXDG(getenv, homeDir))
	s.limits = loadHelmLimits(getenv)
	s.compat, s.externalDiff = getenv(dialect.EnvVar), getenv(ExternalDiffEnv)
	s.colorMode = envColorMode(getenv)
	home, _ := homeDir()
	s.plugins = pluginConfig{getenv: getenv, home: home}
	s.keyring = filepath.Join(getenv("GNUPGHOME"), "pubring.gpg")
	s.chartV3 = getenv("HELM_EXPERIMENTAL_CHART_V3") != ""
	if getenv("GNUPGHOME") == "" {
		s.keyring = filepath.Join(home, ".gnupg", "pubring.gpg")
	}
	if v := getenv(LeaseDurationEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.leaseErr = fmt.Errorf("$%s: %w", LeaseDurationEnv, err)
		}
		s.leaseDuration = d
	}
	return s
}

// defaultBboltPath is $XDG_DATA_HOME/kubectl-chart/releases.db, with XDG's
// fallback of ~/.local/share.
func defaultBboltPath(dataHome string, homeDir func() (string, error)) string {
	if dataHome == "" {
		if home, err := homeDir(); err == nil {
			dataHome = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(dataHome, "kubectl-chart", "releases.db")
}

// setDefaults makes Helm's environment the defaults of kubectl's connection
// flags: a flag given on the command line still wins.
func (k kubeDefaults) setDefaults(cf *genericclioptions.ConfigFlags) {
	set := func(p *string, v string) {
		if p != nil && v != "" {
			*p = v
		}
	}
	set(cf.Namespace, k.namespace)
	set(cf.Context, k.context)
	set(cf.BearerToken, k.token)
	set(cf.APIServer, k.apiServer)
	set(cf.CAFile, k.caFile)
	set(cf.TLSServerName, k.tlsServerName)
	set(cf.Impersonate, k.asUser)
	if cf.ImpersonateGroup != nil && len(k.asGroups) > 0 {
		*cf.ImpersonateGroup = k.asGroups
	}
	if cf.Insecure != nil && k.insecureSkipTLSVerify {
		*cf.Insecure = true
	}
}
