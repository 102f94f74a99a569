// Package yamlcodec reads and writes YAML streams of resources with kustomize's
// kyaml, the library Helm 4 reads and writes post-renderer streams with: the
// same library gives the same bytes (quoting, comments, indentation) and the
// same errors.
package yamlcodec

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// KYAML implements ports.YAMLCodec.
type KYAML struct{}

var _ ports.YAMLCodec = KYAML{}

// Parse implements ports.YAMLCodec.
func (KYAML) Parse(stream string) ([]ports.YAMLDocument, error) {
	nodes, err := kio.ParseAll(stream)
	if err != nil {
		return nil, err
	}
	docs := make([]ports.YAMLDocument, len(nodes))
	for i, n := range nodes {
		docs[i] = document{n}
	}
	return docs, nil
}

// Format implements ports.YAMLCodec.
func (KYAML) Format(docs []ports.YAMLDocument) (string, error) {
	nodes := make([]*kyaml.RNode, len(docs))
	for i, d := range docs {
		doc, ok := d.(document)
		if !ok {
			return "", fmt.Errorf("format: document %d is a %T, not one this codec parsed", i, d)
		}
		nodes[i] = doc.node
	}
	return kio.StringAll(nodes)
}

// document is one parsed document.
type document struct{ node *kyaml.RNode }

func (d document) Annotations() (map[string]string, error) {
	meta, err := d.node.GetMeta()
	if err != nil {
		return nil, err
	}
	return meta.Annotations, nil
}

func (d document) SetAnnotation(key, value string) error {
	return d.node.PipeE(kyaml.SetAnnotation(key, value))
}

func (d document) ClearAnnotation(key string) error {
	return d.node.PipeE(kyaml.ClearAnnotation(key))
}
