package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/hub"
)

// hubChart is one chart `search hub` prints, under Helm's JSON names.
type hubChart struct {
	URL         string `json:"url"`
	Version     string `json:"version"`
	AppVersion  string `json:"app_version"`
	Description string `json:"description"`
	Repository  struct {
		URL  string `json:"url"`
		Name string `json:"name"`
	} `json:"repository"`
}

// newCmdSearchHub builds `kubectl chart search hub`, which asks an Artifact
// Hub compatible endpoint, as Helm's does.
func newCmdSearchHub(streams genericiooptions.IOStreams) *cobra.Command {
	var endpoint, output string
	var maxColWidth uint
	var listRepoURL, failOnNoResult bool
	cmd := &cobra.Command{
		Use:   "hub [KEYWORD]",
		Short: "Search for charts in the Artifact Hub or your own hub instance",
		Long: `Search an Artifact Hub (https://artifacthub.io) compatible endpoint for charts
matching the keywords; --endpoint names another instance.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := hub.Search(cmd.Context(), http.DefaultClient, endpoint, strings.Join(args, " "))
			if err != nil {
				return fmt.Errorf("unable to perform search against %q: %w", endpoint, err)
			}
			charts := make([]hubChart, 0, len(results))
			for _, r := range results {
				c := hubChart{URL: endpoint + "/charts/" + r.ID, Version: r.Relationships.LatestChartVersion.Data.Version,
					AppVersion: r.Relationships.LatestChartVersion.Data.AppVersion, Description: r.Attributes.Description}
				if r.ArtifactHub.PackageURL != "" {
					c.URL = r.ArtifactHub.PackageURL
				}
				c.Repository.URL, c.Repository.Name = r.Attributes.Repo.URL, r.Attributes.Repo.Name
				charts = append(charts, c)
			}
			if len(charts) == 0 && failOnNoResult {
				return errors.New("no results found")
			}
			if output != "table" {
				return writeStructured(streams.Out, output, charts)
			}
			if len(charts) == 0 {
				_, err := fmt.Fprintln(streams.Out, "No results found")
				return err
			}
			t := newTable(maxColWidth)
			if listRepoURL {
				t.row("URL", "CHART VERSION", "APP VERSION", "DESCRIPTION", "REPO URL")
			} else {
				t.row("URL", "CHART VERSION", "APP VERSION", "DESCRIPTION")
			}
			for _, c := range charts {
				if listRepoURL {
					t.row(c.URL, c.Version, c.AppVersion, c.Description, c.Repository.URL)
				} else {
					t.row(c.URL, c.Version, c.AppVersion, c.Description)
				}
			}
			return t.write(streams.Out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&endpoint, "endpoint", "https://hub.helm.sh", "Hub instance to query for charts")
	f.UintVar(&maxColWidth, "max-col-width", 50, "maximum column width for output table")
	f.BoolVar(&listRepoURL, "list-repo-url", false, "print charts repository URL")
	f.BoolVar(&failOnNoResult, "fail-on-no-result", false, "search fails if no results are found")
	addOutputFlag(f, &output)
	return cmd
}
