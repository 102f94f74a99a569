package render

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// PostRender is a post-renderer with the codec the Helm 4 dialect reads and
// writes its streams with. Each dialect hands it something else:
//
//   - Helm 4 (its "combined" strategy) hands it every template, hooks included,
//     each document annotated with the file it came from, then reads its
//     output back, refusing malformed YAML and documents that are not
//     mappings, and sorts the documents into hooks and manifest by their
//     annotations again: the post-renderer can add, drop or change hooks.
//   - Helm 3 hands it the release's manifest text (CRDs first when included),
//     hooks never, and takes its output as the manifest as it is.
type PostRender struct {
	Renderer ports.PostRenderer
	// Codec is needed by the Helm 4 dialect only.
	Codec ports.YAMLCodec
	// HideSecrets (--hide-secret on a dry run): Helm 3 hides the Secrets of
	// the text it hands over, so the post-renderer never sees them; Helm 4
	// hides them in what the post-renderer returned, as without one.
	HideSecrets bool
}

// postRenderFileAnnotation carries a document's template file through Helm 4's
// post-renderer stream.
const postRenderFileAnnotation = "postrenderer.helm.sh/postrender-filename"

// errWhileRunning prefixes a failing post-renderer's error, in both dialects.
const errWhileRunning = "error while running post render on files"

// postRenderCombined post-renders the rendered templates (file name to text)
// with p as Helm 4 does and returns the files it makes of the output.
func postRenderCombined(ctx context.Context, p *PostRender, files map[string]string) (map[string]string, error) {
	if p.Codec == nil {
		return nil, fmt.Errorf("post-render: no YAML codec for the Helm 4 dialect")
	}
	stream, err := annotateAndMerge(p.Codec, files)
	if err != nil {
		return nil, fmt.Errorf("error merging manifests: %w", err)
	}
	out, err := p.Renderer.PostRender(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errWhileRunning, err)
	}
	files, err = splitByFile(p.Codec, out)
	if err != nil {
		return nil, fmt.Errorf("error while parsing post rendered output: %w", err)
	}
	return files, nil
}

// annotateAndMerge is the stream Helm 4 hands the post-renderer: the files in
// name order (partials and blank files left out), each document as the codec
// writes it, annotated with its file.
func annotateAndMerge(codec ports.YAMLCodec, files map[string]string) (string, error) {
	var docs []ports.YAMLDocument
	for _, name := range slices.Sorted(maps.Keys(files)) {
		text := files[name]
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(text) == "" {
			continue
		}
		// Cut as Helm 4 cuts a file into documents before it parses them, so a
		// "---" glued to a line still separates documents.
		for _, doc := range manifest.SplitHelm4(text) {
			parsed, err := codec.Parse(doc)
			if err != nil {
				return "", fmt.Errorf("parsing %s: %w", name, err)
			}
			for _, d := range parsed {
				if err := d.SetAnnotation(postRenderFileAnnotation, name); err != nil {
					return "", fmt.Errorf("annotating %s: %w", name, err)
				}
			}
			docs = append(docs, parsed...)
		}
	}
	stream, err := codec.Format(docs)
	if err != nil {
		return "", fmt.Errorf("writing merged docs: %w", err)
	}
	return stream, nil
}

// splitByFile groups the post-renderer's documents by the file their
// annotation names, without it; a document without one (the post-renderer
// added it) is a file of its own, named after its position in the output.
func splitByFile(codec ports.YAMLCodec, out string) (map[string]string, error) {
	docs, err := codec.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("error parsing YAML: %w", err)
	}
	byFile := map[string][]ports.YAMLDocument{}
	for i, d := range docs {
		ann, err := d.Annotations()
		if err != nil {
			return nil, fmt.Errorf("getting metadata: %w", err)
		}
		name := ann[postRenderFileAnnotation]
		if name == "" {
			name = fmt.Sprintf("generated-by-postrender-%d.yaml", i)
		}
		if err := d.ClearAnnotation(postRenderFileAnnotation); err != nil {
			return nil, fmt.Errorf("clearing filename annotation: %w", err)
		}
		byFile[name] = append(byFile[name], d)
	}
	files := make(map[string]string, len(byFile))
	for name, ds := range byFile {
		text, err := codec.Format(ds)
		if err != nil {
			return nil, fmt.Errorf("re-writing %s: %w", name, err)
		}
		files[name] = text
	}
	return files, nil
}

// hiddenSecret stands for a Secret's document with --hide-secret, in Helm's
// words.
const hiddenSecret = "# HIDDEN: The Secret output has been suppressed"

// withSecretsHidden is manifests with each v1 Secret's content replaced as
// Helm 3 replaces it in the text it post-renders.
func withSecretsHidden(manifests []manifest.Manifest) []manifest.Manifest {
	out := make([]manifest.Manifest, len(manifests))
	for i, m := range manifests {
		if m.Head != nil && m.Head.Kind == "Secret" && m.Head.Version == "v1" {
			m.Content = hiddenSecret
		}
		out[i] = m
	}
	return out
}

// postRenderManifest post-renders the manifest text with p as Helm 3 does.
func postRenderManifest(ctx context.Context, p *PostRender, text string) (string, error) {
	out, err := p.Renderer.PostRender(ctx, text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", errWhileRunning, err)
	}
	return out, nil
}
