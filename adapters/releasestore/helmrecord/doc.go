// # Storage format
//
// One revision is one Kubernetes object (a Secret of type helm.sh/release.v1, or a
// ConfigMap), exactly as Helm 3 and 4 write it:
//
//   - name: sh.helm.release.v1.<release>.v<revision>
//   - labels: owner=helm, name=<release>, status=<status>, version=<revision>,
//     plus the user's --labels; createdAt=<unix seconds> when created,
//     modifiedAt=<unix seconds> when updated. As Helm, an update keeps createdAt
//     only for a revision read from the store that still has it: the update
//     ending an install or upgrade leaves modifiedAt alone. owner, name, status,
//     version, createdAt and modifiedAt are system labels: they are stripped
//     from the labels handed back.
//   - data key "release": base64 (standard alphabet) of the best-compression gzip of
//     the release JSON. Secrets hold that base64 text as the value's bytes (so the API
//     shows it base64-encoded twice); ConfigMaps hold it as a string.
//
// kubectl-chart adds annotations, which Helm ignores and drops when it rewrites an
// object, so they can never go stale under Helm:
//
//   - kubectl-chart.dev/summary: compact JSON of what `list` and `history` show and
//     labels cannot hold (chart name-version, app version, first and last deployed
//     times, description). Listing reads labels and this annotation and decodes no
//     payload; an object without it (written by Helm) is decoded instead.
//
// # Records larger than an object
//
// Kubernetes refuses objects over 1 MiB; Helm then fails. When the encoded record
// exceeds the store's chunk size (1,000,000 bytes by default), kubectl-chart
// splits the base64 text into chunks:
//
//   - the head object above holds chunk 0 under "release", with annotations
//     kubectl-chart.dev/chunks=<count including the head>,
//     kubectl-chart.dev/chunk-set=<random id>, kubectl-chart.dev/digest=sha256:<hex of
//     the whole base64 text>;
//   - chunk i (1 ≤ i < count) is the object <head name>.<chunk-set>.<i>, without
//     Helm's labels (so Helm never lists it) but labelled
//     kubectl-chart.dev/chunk-of=<release>, kubectl-chart.dev/chunk-of-version=<revision>;
//     a Secret chunk has type kubectl-chart.dev/release-chunk.v1. Its data key
//     "chunk" holds its slice of the text.
//
// Chunks are written before the head, and the head is the commit point: a crash
// leaves at worst unreferenced chunks (removed with the revision), never a head
// that points at missing data. Updates write a new chunk set, switch the head to
// it, then delete the old set. A missing chunk or a digest mismatch is an error
// naming the object. Helm cannot read a chunked record (it never could store one).
package helmrecord
