// Package hub searches an Artifact Hub compatible endpoint (Helm's search hub).
package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
)

// searchPath is the search API under the endpoint, as Helm calls it.
const searchPath = "api/chartsvc/v1/charts/search"

// Result is one chart the hub found.
type Result struct {
	ID          string `json:"id"`
	ArtifactHub struct {
		PackageURL string `json:"packageUrl"`
	} `json:"artifactHub"`
	Attributes struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Repo        struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"repo"`
	} `json:"attributes"`
	Relationships struct {
		LatestChartVersion struct {
			Data struct {
				Version    string `json:"version"`
				AppVersion string `json:"app_version"`
			} `json:"data"`
		} `json:"latestChartVersion"`
	} `json:"relationships"`
}

// Search asks endpoint for charts matching term.
func Search(ctx context.Context, client *http.Client, endpoint, term string) ([]Result, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	u.Path = path.Join(u.Path, searchPath)
	u.RawQuery = "q=" + url.QueryEscape(term)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to fetch %s : %s", u.String(), res.Status)
	}
	var body struct {
		Data []Result `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return nil, err
	}
	return body.Data, nil
}
