package values

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/yamldoc"
)

// Read parses a values file (a chart's values.yaml or a -f file) by the dialect's
// rules. Helm 3 reads the first YAML document. Helm 4 reads every document, split
// at lines that start with "---", and merges them in order as -f files merge (later
// documents win, tables merge); a separator line with anything but a comment after
// the dashes is an error.
func Read(d dialect.Dialect, data []byte) (map[string]any, error) {
	if !d.IsHelm4() {
		return yamldoc.UnmarshalMap(data)
	}
	if !hasSeparatorLine(data) && !bytes.Contains(data, []byte("\r\n")) {
		// One document, read as the line reader below would pass it on.
		m, err := yamldoc.UnmarshalMap(data)
		if err != nil {
			return nil, fmt.Errorf("cannot unmarshal yaml document: %w", err)
		}
		return MergeMaps(map[string]any{}, m), nil
	}
	return readDocuments(data)
}

// readDocuments is Helm 4's reading of several documents: Kubernetes' YAML reader
// splits them (it also turns CRLF line ends into LF), and each is parsed and merged.
func readDocuments(data []byte) (map[string]any, error) {
	// The reader can lose an unterminated last line (Helm 4 adds the line break too).
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data[:len(data):len(data)], '\n')
	}
	out := map[string]any{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("error reading yaml document: %w", err)
		}
		m, err := yamldoc.UnmarshalMap(doc)
		if err != nil {
			return nil, fmt.Errorf("cannot unmarshal yaml document: %w", err)
		}
		out = MergeMaps(out, m)
	}
}

// hasSeparatorLine reports whether a line of data starts with "---".
func hasSeparatorLine(data []byte) bool {
	for i := 0; i < len(data); {
		if bytes.HasPrefix(data[i:], []byte("---")) {
			return true
		}
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
	}
	return false
}
