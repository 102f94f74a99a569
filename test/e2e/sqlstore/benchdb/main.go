//go:build e2e

// Command benchdb serves the SQL store's `list` benchmark (hack/bench.sh
// sqllist): it starts a throw-away PostgreSQL (test/pgserver), fills Helm's
// tables with R releases × N revisions spread over namespaces (the records of
// test/benchrecords, as Helm's SQL driver writes them), writes the connection
// string to -url-file, and serves until interrupted, then removes it all.
//
//	go run ./test/e2e/sqlstore/benchdb -releases 10000 -revisions 10 -url-file /tmp/url
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/test/benchrecords"
	"github.com/kubectl-chart/kubectl-chart/test/pgserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchdb:", err)
		os.Exit(1)
	}
}

func run() error {
	releases := flag.Int("releases", 10000, "number of releases")
	revisions := flag.Int("revisions", 10, "revisions per release")
	namespaces := flag.Int("namespaces", 10, "namespaces to spread the releases over")
	urlFile := flag.String("url-file", "", "file to write the connection string to once the database is filled")
	flag.Parse()
	ctx := context.Background()
	srv, err := pgserver.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	url, err := srv.CreateDatabase(ctx, "helm")
	if err != nil {
		return err
	}
	// Helm's tables, as any of Helm or us would create them.
	store, err := postgres.Open(ctx, url)
	if err != nil {
		return err
	}
	store.Close()
	start := time.Now()
	if err := fill(ctx, url, *releases, *revisions, *namespaces); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchdb: %d records in %s\n", *releases**revisions, time.Since(start).Round(time.Second))
	if err := srv.Exec(ctx, "helm", "VACUUM ANALYZE"); err != nil {
		return err
	}
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url), 0o600); err != nil {
			return err
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}

// Placeholders of the record templates, as long as the names they stand for.
const (
	namePlaceholder = "app-#####"
	nsPlaceholder   = "bench-##"
)

// templates are the JSON records of each revision with placeholder names:
// seeding then fills in names and compresses, instead of marshalling a
// chart of 30 templates 100,000 times.
func templates(revisions int) ([][]byte, error) {
	ch := benchrecords.Chart()
	out := make([][]byte, revisions+1)
	for rev := 1; rev <= revisions; rev++ {
		js, err := json.Marshal(benchrecords.Release(ch, nsPlaceholder, namePlaceholder, rev, revisions))
		if err != nil {
			return nil, err
		}
		out[rev] = js
	}
	return out, nil
}

// encode is helmrecord.Encode of a template with its names filled in, at
// gzip's fastest level, which Helm reads alike.
func encode(tmpl []byte, ns, name string) (string, error) {
	js := bytes.ReplaceAll(bytes.ReplaceAll(tmpl, []byte(namePlaceholder), []byte(name)), []byte(nsPlaceholder), []byte(ns))
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(js); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// fill writes the rows by COPY, the bodies encoded by as many workers as
// there are processors.
func fill(ctx context.Context, url string, releases, revisions, namespaces int) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	tmpls, err := templates(revisions)
	if err != nil {
		return err
	}
	const batch = 2000
	rows := make(chan []any, batch)
	errc := make(chan error, 1)
	go func() {
		defer close(rows)
		jobs := make(chan [2]int)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for j := range jobs {
					i, rev := j[0], j[1]
					ns, name := fmt.Sprintf("bench-%02d", i%namespaces), fmt.Sprintf("app-%05d", i)
					body, err := encode(tmpls[rev], ns, name)
					if err != nil {
						select {
						case errc <- err:
						default:
						}
						continue
					}
					status := release.StatusSuperseded
					if rev == revisions {
						status = release.StatusDeployed
					}
					rows <- []any{helmrecord.ObjectName(name, rev), "helm.sh/release.v1", body, name, ns, rev, string(status), "helm", int32(1767225600 + rev)}
				}
			})
		}
		for i := range releases {
			for rev := 1; rev <= revisions; rev++ {
				jobs <- [2]int{i, rev}
			}
		}
		close(jobs)
		wg.Wait()
	}()
	cols := []string{"key", "type", "body", "name", "namespace", "version", "status", "owner", "createdat"}
	for {
		var chunk [][]any
		for row := range rows {
			chunk = append(chunk, row)
			if len(chunk) == batch {
				break
			}
		}
		if len(chunk) == 0 {
			break
		}
		if _, err := c.CopyFrom(ctx, pgx.Identifier{"releases_v1"}, cols, pgx.CopyFromRows(chunk)); err != nil {
			return err
		}
	}
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}
