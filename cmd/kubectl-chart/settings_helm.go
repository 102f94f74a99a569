package main

import (
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"
)

// helmFiles are the files Helm and kubectl chart keep between runs. Helm's are
// shared when Helm's environment names them or when they exist, so that a
// user's `helm repo add` and `helm registry login` work here at once; our own
// KUBECTL_CHART_* variables win over both.
type helmFiles struct {
	// configHome, cacheHome and dataHome are Helm's ($HELM_CONFIG_HOME ...),
	// as `helm env` prints them.
	configHome, cacheHome, dataHome string
	// repositoryConfig is repositories.yaml; repositoryCache holds the
	// cached indexes, NAME-index.yaml.
	repositoryConfig, repositoryCache string
	// registryConfig is the registry logins' docker-compatible config.json.
	registryConfig string
	// plugins is Helm's plugin directories ($HELM_PLUGINS).
	plugins string
	// contentCache is Helm 4's cache of downloaded charts by digest
	// ($HELM_CONTENT_CACHE, --content-cache), shared with Helm 4.
	contentCache string
	// starters are the directories `create --starter NAME` looks in, ours first.
	starters []string
}

// helmLimits are Helm's numeric and boolean settings.
type helmLimits struct {
	maxHistory int
	debug      bool
	burstLimit int
	qps        float32
}

// Helm's defaults for its limits.
const (
	helmDefaultMaxHistory = 10
	helmDefaultBurstLimit = 100
)

// xdgDirs are the XDG base directories, with the specification's fallbacks.
type xdgDirs struct{ config, cache, data string }

func loadXDG(getenv func(string) string, homeDir func() (string, error)) xdgDirs {
	home, _ := homeDir()
	or := func(v string, def ...string) string {
		if v != "" {
			return v
		}
		return filepath.Join(append([]string{home}, def...)...)
	}
	return xdgDirs{
		config: or(getenv("XDG_CONFIG_HOME"), ".config"),
		cache:  or(getenv("XDG_CACHE_HOME"), ".cache"),
		data:   or(getenv("XDG_DATA_HOME"), ".local", "share"),
	}
}

// loadHelmFiles locates the files: $KUBECTL_CHART_X, else $HELM_X, else
// Helm's file when Helm's home is named or the file exists, else ours under
// the XDG directories. The repository cache follows repositories.yaml: Helm's
// with Helm's, since `helm repo add` fills Helm's cache.
func loadHelmFiles(getenv func(string) string, xdg xdgDirs) helmFiles {
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	f := helmFiles{
		configHome: or(getenv("HELM_CONFIG_HOME"), filepath.Join(xdg.config, "helm")),
		cacheHome:  or(getenv("HELM_CACHE_HOME"), filepath.Join(xdg.cache, "helm")),
		dataHome:   or(getenv("HELM_DATA_HOME"), filepath.Join(xdg.data, "helm")),
	}
	f.plugins = or(getenv("HELM_PLUGINS"), filepath.Join(f.dataHome, "plugins"))
	f.contentCache = or(getenv("HELM_CONTENT_CACHE"), filepath.Join(f.cacheHome, "content"))
	helmRepos := or(getenv("HELM_REPOSITORY_CONFIG"), filepath.Join(f.configHome, "repositories.yaml"))
	helmCache := or(getenv("HELM_REPOSITORY_CACHE"), filepath.Join(f.cacheHome, "repository"))
	helmRegistry := or(getenv("HELM_REGISTRY_CONFIG"), filepath.Join(f.configHome, "registry", "config.json"))
	// shared says whether Helm's file (named by variable, or under a Helm
	// home the user named, or existing) is the one to use.
	shared := func(fileVar, homeVar, path string) bool {
		return getenv(fileVar) != "" || getenv(homeVar) != "" || exists(path)
	}
	ours := filepath.Join(xdg.config, "kubectl-chart")
	f.repositoryConfig, f.repositoryCache = filepath.Join(ours, "repositories.yaml"), filepath.Join(xdg.cache, "kubectl-chart", "repository")
	if shared("HELM_REPOSITORY_CONFIG", "HELM_CONFIG_HOME", helmRepos) {
		f.repositoryConfig, f.repositoryCache = helmRepos, helmCache
	}
	if getenv("HELM_REPOSITORY_CACHE") != "" {
		f.repositoryCache = helmCache
	}
	f.repositoryConfig = or(getenv("KUBECTL_CHART_REPOSITORY_CONFIG"), f.repositoryConfig)
	f.repositoryCache = or(getenv("KUBECTL_CHART_REPOSITORY_CACHE"), f.repositoryCache)
	f.registryConfig = filepath.Join(ours, "registry", "config.json")
	if shared("HELM_REGISTRY_CONFIG", "HELM_CONFIG_HOME", helmRegistry) {
		f.registryConfig = helmRegistry
	}
	f.registryConfig = or(getenv("KUBECTL_CHART_REGISTRY_CONFIG"), f.registryConfig)
	f.starters = []string{filepath.Join(xdg.data, "kubectl-chart", "starters"), filepath.Join(f.dataHome, "starters")}
	return f
}

// loadHelmLimits reads Helm's limits as Helm does: a value that does not
// parse is the default.
func loadHelmLimits(getenv func(string) string) helmLimits {
	l := helmLimits{maxHistory: helmDefaultMaxHistory, burstLimit: helmDefaultBurstLimit}
	if v, err := strconv.Atoi(getenv("HELM_MAX_HISTORY")); err == nil {
		l.maxHistory = v
	}
	if v, err := strconv.Atoi(getenv("HELM_BURST_LIMIT")); err == nil {
		l.burstLimit = v
	}
	if v, err := strconv.ParseFloat(getenv("HELM_QPS"), 32); err == nil {
		l.qps = float32(v)
	}
	l.debug, _ = strconv.ParseBool(getenv("HELM_DEBUG"))
	return l
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// withLimits applies --burst-limit and --qps ($HELM_BURST_LIMIT, $HELM_QPS) as
// Helm 3.22 and 4.3.1 do: the burst always (100 by default), the rate as
// given. Helm's rate of 0 means the client library's default; ours are the
// rates our clients set for themselves when none is given, with a burst to
// match that the burst limit can only raise (kube.WithOwnRate). A negative
// rate turns client-side throttling off, as in client-go.
func (s *settings) withLimits(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Burst = s.limits.burstLimit
	if s.limits.qps != 0 {
		cfg.QPS = s.limits.qps
	}
	return cfg
}
