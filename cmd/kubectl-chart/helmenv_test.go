package main

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestHelmEnvironment(t *testing.T) {
	tests := map[string]struct {
		env       map[string]string
		driver    string
		namespace string
		context   string
		insecure  bool
		sql       string
	}{
		"helm's sql":            {env: map[string]string{"HELM_DRIVER": "sql", SQLConnectionEnv: "postgres://h/db"}, driver: storageSQL, sql: "postgres://h/db"},
		"our connection string": {env: map[string]string{"HELM_DRIVER": "sql", SQLConnectionEnv: "postgres://h/db", SQLConnectionOwnEnv: "postgres://ours/db"}, driver: storageSQL, sql: "postgres://ours/db"},
		"none":                  {driver: storageSecret},
		"helm's":                {env: map[string]string{"HELM_NAMESPACE": "prod", "HELM_KUBECONTEXT": "east", "HELM_DRIVER": "configmaps", "HELM_KUBEINSECURE_SKIP_TLS_VERIFY": "true"}, driver: storageConfigMap, namespace: "prod", context: "east", insecure: true},
		"ours wins over helm's": {env: map[string]string{"HELM_DRIVER": "configmap", StorageEnv: "bbolt"}, driver: storageBbolt},
		"helm's plural secrets": {env: map[string]string{"HELM_DRIVER": "secrets"}, driver: storageSecret},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := loadSettings(func(k string) string { return tc.env[k] }, func() (string, error) { return "/home/u", nil })
			flags := genericclioptions.NewConfigFlags(true)
			s.kube.setDefaults(flags)
			if s.storage.Driver != tc.driver || *flags.Namespace != tc.namespace || *flags.Context != tc.context || *flags.Insecure != tc.insecure || s.storage.SQLConnection != tc.sql {
				t.Errorf("driver %q namespace %q context %q insecure %v sql %q", s.storage.Driver, *flags.Namespace, *flags.Context, *flags.Insecure, s.storage.SQLConnection)
			}
		})
	}
}

// parseFlags parses a command line's flags as the program does, without running it.
func parseFlags(t *testing.T, flags *genericclioptions.ConfigFlags, args ...string) {
	t.Helper()
	root := newRootCmd(flags, newTestFactory(t, flags), genericiooptions.NewTestIOStreamsDiscard(), BuildInfo{Version: "test"})
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

func TestHelmGlobalFlags(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(true)
	parseFlags(t, flags, "install", "web", "./chart", "--kube-context", "east", "--kube-apiserver", "https://h:6443", "--kube-token", "tok", "--kube-as-user", "bob")
	if *flags.Context != "east" || *flags.APIServer != "https://h:6443" || *flags.BearerToken != "tok" || *flags.Impersonate != "bob" {
		t.Errorf("Helm's global flags did not set kubectl's: context %q server %q token %q as %q", *flags.Context, *flags.APIServer, *flags.BearerToken, *flags.Impersonate)
	}
}

// Copying a Helm command line must never weaken the API server's TLS:
// --insecure-skip-tls-verify is the chart download's, as in Helm.
func TestInsecureSkipTLSVerifyIsTheChartDownloads(t *testing.T) {
	for _, args := range [][]string{
		{"install", "web", "./chart", "--insecure-skip-tls-verify"},
		{"upgrade", "web", "./chart", "--insecure-skip-tls-verify"},
		{"diff", "upgrade", "web", "./chart", "--insecure-skip-tls-verify"},
		{"template", "web", "./chart", "--insecure-skip-tls-verify"},
		{"pull", "repo/chart", "--insecure-skip-tls-verify"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			flags := genericclioptions.NewConfigFlags(true)
			parseFlags(t, flags, args...)
			if *flags.Insecure {
				t.Errorf("%v turned off the API server's certificate check", args)
			}
		})
	}
	flags := genericclioptions.NewConfigFlags(true)
	parseFlags(t, flags, "install", "web", "./chart", "--kube-insecure-skip-tls-verify")
	if !*flags.Insecure {
		t.Error("--kube-insecure-skip-tls-verify did not turn off the API server's certificate check")
	}
}
