package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// NewCmdRepo builds `kubectl chart repo`.
func NewCmdRepo(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "repo",
		Short: "Add, list, remove, update and index chart repositories",
		Long: `Manage chart repositories: repositories.yaml lives under $XDG_CONFIG_HOME/kubectl-chart
and cached indexes under $XDG_CACHE_HOME/kubectl-chart/repository.`,
	}
	cmd.AddCommand(newCmdRepoAdd(streams), newCmdRepoList(streams), newCmdRepoUpdate(streams),
		newCmdRepoRemove(streams), newCmdRepoIndex(streams))
	return cmd
}

type repoAddOptions struct {
	genericiooptions.IOStreams
	repoSettings
	entry         domrepo.Entry
	forceUpdate   bool
	passwordStdin bool
	// allowDeprecated is Helm's --allow-deprecated-repos; noUpdate Helm 3's
	// --no-update, which Helm 3 ignores.
	allowDeprecated, noUpdate bool
	timeout                   time.Duration
}

// deprecatedRepos are the official repositories deleted for good, and their
// successors, which Helm's repo add refuses unless --allow-deprecated-repos.
func deprecatedRepos() map[string]string {
	return map[string]string{
		"//kubernetes-charts.storage.googleapis.com":           "https://charts.helm.sh/stable",
		"//kubernetes-charts-incubator.storage.googleapis.com": "https://charts.helm.sh/incubator",
	}
}

func newCmdRepoAdd(streams genericiooptions.IOStreams) *cobra.Command {
	o := &repoAddOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "add [NAME] [URL]",
		Short: "Add a chart repository",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.entry.Name, o.entry.URL = args[0], args[1]
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.AddFlags(f)
	f.StringVar(&o.entry.Username, "username", "", "chart repository username")
	f.StringVar(&o.entry.Password, "password", "", "chart repository password")
	f.BoolVar(&o.passwordStdin, "password-stdin", false, "read chart repository password from stdin")
	f.BoolVar(&o.forceUpdate, "force-update", false, "replace (overwrite) the repo if it already exists")
	f.StringVar(&o.entry.CertFile, "cert-file", "", "identify HTTPS client using this SSL certificate file")
	f.StringVar(&o.entry.KeyFile, "key-file", "", "identify HTTPS client using this SSL key file")
	f.StringVar(&o.entry.CAFile, "ca-file", "", "verify certificates of HTTPS-enabled servers using this CA bundle")
	f.BoolVar(&o.entry.InsecureSkipTLSverify, "insecure-skip-tls-verify", false, "skip tls certificate checks for the repository")
	f.BoolVar(&o.entry.PassCredentialsAll, "pass-credentials", false, "pass credentials to all domains")
	f.BoolVar(&o.allowDeprecated, "allow-deprecated-repos", false, "by default, this command will not allow adding official repos that have been permanently deleted. This disables that behavior")
	f.DurationVar(&o.timeout, "timeout", repo.DefaultTimeout, "time to wait for the index file download to complete")
	f.BoolVar(&o.noUpdate, "no-update", false, "Ignored. Formerly, it would disabled forced updates. It is deprecated by force-update.")
	helmOnly(f, dialect.Helm3, "no-update")
	return cmd
}

func (o *repoAddOptions) Run(ctx context.Context) error {
	if !o.allowDeprecated {
		for old, successor := range deprecatedRepos() {
			if strings.Contains(o.entry.URL, old) {
				return fmt.Errorf("repo %q is no longer available; try %q instead", o.entry.URL, successor)
			}
		}
	}
	if strings.HasPrefix(o.entry.URL, "oci://") {
		return fmt.Errorf("OCI registries are not repositories: use %q directly in pull, show, template and install", o.entry.URL)
	}
	if o.passwordStdin {
		b, err := io.ReadAll(o.In)
		if err != nil {
			return err
		}
		o.entry.Password = strings.TrimRight(string(b), "\r\n")
	}
	if o.entry.Username != "" && o.entry.Password == "" {
		return errors.New("a password is required with --username: use --password or --password-stdin")
	}
	for _, p := range []*string{&o.entry.CertFile, &o.entry.KeyFile, &o.entry.CAFile} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return err
			}
			*p = abs
		}
	}
	m := o.manager(o.ErrOut)
	m.IndexTimeout = o.timeout
	e := o.entry
	if err := m.Add(ctx, &e, o.forceUpdate); err != nil {
		if errors.Is(err, repo.ErrSameRepository) {
			fmt.Fprintf(o.Out, "%q already exists with the same configuration, skipping\n", o.entry.Name)
			return nil
		}
		return err
	}
	fmt.Fprintf(o.Out, "%q has been added to your repositories\n", o.entry.Name)
	return nil
}

func newCmdRepoList(streams genericiooptions.IOStreams) *cobra.Command {
	var s repoSettings
	var output string
	var noHeaders bool
	var compat compatFlags
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List chart repositories",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			if !d.IsHelm4() && cmd.Flags().Changed("no-headers") {
				return errors.New("unknown flag: --no-headers")
			}
			f, err := s.manager(streams.ErrOut).Load()
			if err != nil {
				return err
			}
			if len(f.Repositories) == 0 && output == "table" {
				if d.IsHelm4() {
					// Helm 4 says so and succeeds; Helm 3 fails.
					_, err := fmt.Fprintln(streams.ErrOut, "no repositories to show")
					return err
				}
				return errors.New("no repositories to show")
			}
			type row struct {
				Name string `json:"name"`
				URL  string `json:"url"`
			}
			rows := []row{}
			for _, e := range f.Repositories {
				rows = append(rows, row{e.Name, e.URL})
			}
			if output != "table" && output != "" {
				return printRows(streams.Out, output, rows)
			}
			// Helm 4's --no-headers (Helm 3 has none).
			t := newTable(0)
			if !noHeaders {
				t.row("NAME", "URL")
			}
			for _, r := range rows {
				t.row(r.Name, r.URL)
			}
			return t.write(streams.Out)
		},
	}
	s.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "suppress headers in the output (Helm 4)")
	helmOnly(cmd.Flags(), dialect.Helm4, "no-headers")
	compat.addReadingCompat(cmd.Flags())
	addOutputFlag(cmd.Flags(), &output)
	return cmd
}

// printRows prints rows as JSON or YAML.
func printRows[T any](w io.Writer, format string, rows []T) error {
	switch format {
	case "json":
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("invalid format type %q: allowed values are table, json, yaml", format)
}

func newCmdRepoUpdate(streams genericiooptions.IOStreams) *cobra.Command {
	var s repoSettings
	var failOnError bool
	var timeout time.Duration
	var compat compatFlags
	cmd := &cobra.Command{
		Use:     "update [REPO1 [REPO2 ...]]",
		Aliases: []string{"up"},
		Short:   "Update information of available charts locally from chart repositories",
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			// Helm 4 always fails when a repository does.
			failOnError = failOnError || d.IsHelm4()
			m := s.manager(streams.ErrOut)
			m.Dialect, m.IndexTimeout = d, timeout
			results, err := m.UpdateEach(cmd.Context(), args...)
			if errors.Is(err, repo.ErrNoRepositories) {
				return errors.New("no repositories found. You must add one before updating")
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(streams.Out, "Hang tight while we grab the latest from your chart repositories...")
			var failed []string
			for _, r := range results {
				if r.Err != nil {
					fmt.Fprintf(streams.Out, "...Unable to get an update from the %q chart repository (%s):\n\t%s\n", r.Entry.Name, r.Entry.URL, r.Err)
					failed = append(failed, r.Entry.URL)
					continue
				}
				fmt.Fprintf(streams.Out, "...Successfully got an update from the %q chart repository\n", r.Entry.Name)
			}
			if len(failed) > 0 && failOnError {
				return fmt.Errorf("failed to update the following repositories: %s", failed)
			}
			fmt.Fprintln(streams.Out, "Update Complete. ⎈Happy Helming!⎈")
			return nil
		},
	}
	s.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&failOnError, "fail-on-repo-update-fail", false, "update fails if any of the repository updates fail")
	helmOnly(cmd.Flags(), dialect.Helm3, "fail-on-repo-update-fail")
	cmd.Flags().DurationVar(&timeout, "timeout", repo.DefaultTimeout, "time to wait for the index file download to complete")
	compat.addReadingCompat(cmd.Flags())
	return cmd
}

func newCmdRepoRemove(streams genericiooptions.IOStreams) *cobra.Command {
	var s repoSettings
	cmd := &cobra.Command{
		Use:     "remove [REPO1 [REPO2 ...]]",
		Aliases: []string{"rm"},
		Short:   "Remove one or more chart repositories",
		Args:    minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m := s.manager(streams.ErrOut)
			for _, name := range args {
				if err := m.Remove(name); err != nil {
					return err
				}
				fmt.Fprintf(streams.Out, "%q has been removed from your repositories\n", name)
			}
			return nil
		},
	}
	s.AddFlags(cmd.Flags())
	return cmd
}

func newCmdRepoIndex(streams genericiooptions.IOStreams) *cobra.Command {
	var url, merge string
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Generate an index file given a directory containing packaged charts",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			idx, err := repo.IndexDirectory(dir, url, time.Now())
			if err != nil {
				return err
			}
			if merge != "" {
				data, err := os.ReadFile(merge)
				switch {
				case errors.Is(err, os.ErrNotExist):
				case err != nil:
					return err
				default:
					old, warnings, err := domrepo.ParseIndex(data, merge)
					if err != nil {
						return fmt.Errorf("merge %s: %w", merge, err)
					}
					for _, w := range warnings {
						fmt.Fprintf(streams.ErrOut, "WARNING: %s: %s\n", merge, humanText(w.String()))
					}
					idx.Merge(old)
					idx.SortEntries()
				}
			}
			var out []byte
			if jsonOut {
				out, err = json.Marshal(idx)
			} else {
				out, err = idx.Marshal()
			}
			if err != nil {
				return err
			}
			return atomicfile.Write(filepath.Join(dir, "index.yaml"), out, 0o644)
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "url of chart repository")
	cmd.Flags().StringVar(&merge, "merge", "", "merge the generated index into the given index")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "output in JSON format")
	return cmd
}
