package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// errUnpackedChart is Helm's refusal to verify a chart directory.
var errUnpackedChart = errors.New("unpacked charts cannot be verified")

// verifyChartFile checks a chart archive on disk against the PATH.prov file
// beside it and the keyring, with Helm's checks in Helm's order and words.
func verifyChartFile(d dialect.Dialect, path, keyring string) (*provenance.Verification, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, errUnpackedChart
	case !strings.EqualFold(filepath.Ext(path), ".tgz"):
		return nil, errors.New("chart must be a tgz file")
	}
	provFile := path + ".prov"
	if _, err := os.Stat(provFile); err != nil {
		return nil, fmt.Errorf("could not load provenance file %s: %w", provFile, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	prov, err := os.ReadFile(provFile)
	if err != nil {
		return nil, fmt.Errorf("could not load provenance file %s: %w", provFile, err)
	}
	return verifyProvenance(d, data, filepath.Base(path), prov, keyring)
}

// verifyProvenance is provenance.Verify in the words of dialect d's Helm.
func verifyProvenance(d dialect.Dialect, archive []byte, filename string, prov []byte, keyring string) (*provenance.Verification, error) {
	v, err := provenance.Verify(archive, filename, prov, keyring)
	if !d.IsHelm4() && errors.Is(err, provenance.ErrNoSignature) {
		return nil, fmt.Errorf("failed to decode signature: %w", err)
	}
	return v, err
}

// fetchProvenance downloads the .prov file beside a downloaded archive, or
// returns the one pulled with an OCI chart (Resolver.Provenance) or kept in
// the content cache.
func fetchProvenance(ctx context.Context, r *chartsource.Resolver, f *chartsource.Fetched, ref string) ([]byte, error) {
	if f.Prov != nil {
		return f.Prov, nil
	}
	switch prov, err := r.CachedProvenance(ctx, f); {
	case err == nil:
		return prov, nil
	case !errors.Is(err, ports.ErrNotCached):
		return nil, err
	}
	if strings.HasPrefix(f.URL, "oci://") {
		// Helm names the reference with the version's tag.
		u := f.URL
		if name := path.Base(u); !strings.ContainsAny(name, ":@") {
			u += ":" + strings.TrimSuffix(strings.TrimPrefix(f.Filename, name+"-"), ".tgz")
		}
		return nil, fmt.Errorf("failed to fetch provenance %q", provURL(u))
	}
	if f.Getter == nil {
		return nil, fmt.Errorf("no provenance source for %s", ref)
	}
	prov, err := f.Getter.Get(ctx, provURL(f.URL), 1<<20)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch provenance %q: %w", provURL(f.URL), err)
	}
	return prov, r.StoreProvenance(ctx, f, prov)
}
