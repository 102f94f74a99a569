package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// NewCmdSearch builds `kubectl chart search`.
func NewCmdSearch(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Search for a keyword in charts",
	}
	cmd.AddCommand(newCmdSearchRepo(streams), newCmdSearchHub(streams))
	return cmd
}

func newCmdSearchRepo(streams genericiooptions.IOStreams) *cobra.Command {
	var s repoSettings
	var q domrepo.SearchQuery
	var output string
	var maxColWidth uint
	var failOnNoResult bool
	var compat compatFlags
	cmd := &cobra.Command{
		Use:   "repo [keyword]",
		Short: "Search repositories for a keyword in charts",
		Long: `Search the locally cached indexes of the configured repositories (see 'repo update')
for charts whose name, description or keywords contain the keyword.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Term = strings.Join(args, " ")
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			idx, err := s.manager(streams.ErrOut).Indexes(unreadableIndexWarning(d, streams.ErrOut))
			if err != nil {
				if errors.Is(err, repo.ErrNoRepositories) {
					return errors.New("no repositories configured")
				}
				return err
			}
			results, err := domrepo.Search(idx, q)
			if err != nil {
				return err
			}
			if len(results) == 0 && failOnNoResult {
				return errors.New("no results found")
			}
			if len(results) == 0 && (output == "table" || output == "") {
				_, err := streams.Out.Write([]byte("No results found\n"))
				return err
			}
			type row struct {
				Name        string `json:"name"`
				Version     string `json:"version"`
				AppVersion  string `json:"app_version"`
				Description string `json:"description"`
			}
			rows := make([]row, 0, len(results))
			for _, r := range results {
				rows = append(rows, row{r.Name, r.Chart.Version, r.Chart.AppVersion, r.Chart.Description})
			}
			if output != "table" && output != "" {
				return printRows(streams.Out, output, rows)
			}
			t := newTable(maxColWidth).row("NAME", "CHART VERSION", "APP VERSION", "DESCRIPTION")
			for _, r := range rows {
				t.row(r.Name, r.Version, r.AppVersion, r.Description)
			}
			return t.write(streams.Out)
		},
	}
	f := cmd.Flags()
	s.AddFlags(f)
	f.BoolVarP(&q.Regexp, "regexp", "r", false, "use regular expressions for searching repositories you have added")
	f.BoolVarP(&q.AllVersions, "versions", "l", false, "show the long listing, with each version of each chart on its own line, for repositories you have added")
	f.BoolVar(&q.Devel, "devel", false, "use development versions (alpha, beta, and release candidate releases), too. Equivalent to version '>0.0.0-0'. If --version is set, this is ignored")
	f.StringVar(&q.Version, "version", "", "search using semantic versioning constraints on repositories you have added")
	f.UintVar(&maxColWidth, "max-col-width", 50, "maximum column width for output table")
	f.BoolVar(&failOnNoResult, "fail-on-no-result", false, "search fails if no results are found")
	addOutputFlag(f, &output)
	compat.addReadingCompat(f)
	return cmd
}

// unreadableIndexWarning warns, as the dialect's search does, about a
// repository whose cached index cannot be read: Helm 4 logs it, Helm 3
// prints two warnings (its words name helm).
func unreadableIndexWarning(d dialect.Dialect, errOut io.Writer) func(name string, err error) {
	return func(name string, err error) {
		msg := humanText(err.Error())
		if d.IsHelm4() {
			helm4Logger(errOut, false).Warn("repo is corrupt or missing", "repo", name, "error", msg)
			return
		}
		fmt.Fprintf(errOut, "WARNING: Repo %q is corrupt or missing. Try 'helm repo update'.\nWARNING: %s\n", name, msg)
	}
}
