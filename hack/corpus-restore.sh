#!/usr/bin/env bash
# corpus-restore.sh CORPUS DEST — a benchmark copy of the conformance corpus in DEST:
# every chart linked as it is, except charts whose vendored dependencies the corpus
# copy lacks (their .gitignore kept charts/*.tgz out). Those are copied with the
# dependencies restored from the corpus's own copies of the same chart versions;
# dependencies that are disabled by default get a stub. Mirrors vendoredFromCorpus in
# domain/action/render_bench_test.go.
set -euo pipefail
corpus=${1:?usage: corpus-restore.sh CORPUS DEST}
dest=${2:?usage: corpus-restore.sh CORPUS DEST}
mkdir -p "$dest"
for dir in "$corpus"/*/; do
  id=$(basename "$dir")
  [ "$id" = kube-prometheus-stack ] && continue
  ln -sfn "$(cd "$dir" && pwd)" "$dest/$id"
done

kps="$dest/kube-prometheus-stack"
rm -rf "$kps"
cp -r "$corpus/kube-prometheus-stack" "$kps"
chmod -R u+w "$kps"
for dep in kube-state-metrics prometheus-node-exporter grafana; do
  cp -r "$corpus/$dep/chart" "$kps/chart/charts/$dep"
done
chmod -R u+w "$kps/chart/charts"
# The packaged grafana chart leaves its tests out (its own .helmignore).
rm -rf "$kps/chart/charts/grafana/templates/tests"
mkdir -p "$kps/chart/charts/prometheus-windows-exporter"
printf 'apiVersion: v2\nname: prometheus-windows-exporter\nversion: 0.12.8\n' > "$kps/chart/charts/prometheus-windows-exporter/Chart.yaml"
