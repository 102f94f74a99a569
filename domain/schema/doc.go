// Package schema validates chart values against a chart's values.schema.json
// exactly as Helm v3.22 does: same JSON Schema drafts (4, 6, 7, 2019-09,
// 2020-12, defaulting to 2020-12 when "$schema" is absent), same handling of
// references, and byte-identical error texts.
//
// The package performs no I/O of its own: documents referenced through
// file://, http:// or https:// (and custom "$schema" metaschemas) are fetched
// only through a caller-supplied Loader.
package schema
