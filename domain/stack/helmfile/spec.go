package helmfile

import (
	"fmt"
	"sort"

	yamlv3 "go.yaml.in/yaml/v3"
)

// The keys of helmfile's state file. supported are read; the rest of
// helmfile's keys are refused by name (a key silently ignored would deploy
// something other than what the file says); anything else is unknown.
var (
	topKeys = keySet{
		supported:   []string{"environments", "repositories", "helmDefaults", "releases", "bases", "helmfiles", "values"},
		unsupported: []string{"helmBinary", "kustomizeBinary", "kubeContext", "namespace", "chart", "commonLabels", "llm", "apiVersions", "kubeVersion", "hooks", "templates", "defaultInherit", "missingFileHandler", "missingFileHandlerConfig", "lockFilePath", "ignoreMissingGitBranch"},
	}
	envKeys = keySet{
		supported:   []string{"values", "kubeContext", "missingFileHandler"},
		unsupported: []string{"secrets", "missingFileHandlerConfig", "mergeStrategy"},
	}
	repoKeys = keySet{
		supported:   []string{"name", "url", "oci", "username", "password"},
		unsupported: []string{"caFile", "certFile", "keyFile", "registryConfig", "managed", "verify", "keyring", "passCredentials", "skipTLSVerify", "plainHttp"},
	}
	defaultsKeys = keySet{
		supported:   []string{"kubeContext", "wait", "waitForJobs", "timeout", "createNamespace"},
		unsupported: []string{"args", "diffArgs", "syncArgs", "templateArgs", "verify", "keyring", "enableDNS", "skipSchemaValidation", "devel", "waitRetries", "recreatePods", "force", "atomic", "rollbackOnFailure", "cleanupOnFail", "forceConflicts", "historyMax", "skipCRDs", "skipDeps", "skipRefresh", "resolveOCIVersions", "reuseValues", "postRenderer", "postRendererArgs", "cascade", "suppressOutputLineRegex", "disableAutoDetectedKubeVersionForDiff", "disableValidation", "disableOpenAPIValidation", "insecureSkipTLSVerify", "plainHttp", "deleteWait", "deleteTimeout", "syncReleaseLabels", "takeOwnership", "serverSide", "trackMode", "helmStuckGrace"},
	}
	releaseKeys = keySet{
		supported:   []string{"name", "namespace", "chart", "version", "values", "set", "setString", "needs", "labels", "installed", "createNamespace", "wait", "waitForJobs", "timeout", "kubeContext", "condition", "missingFileHandler"},
		unsupported: []string{"chartPath", "directory", "verify", "keyring", "enableDNS", "devel", "waitRetries", "recreatePods", "force", "updateStrategy", "atomic", "rollbackOnFailure", "cleanupOnFail", "forceConflicts", "historyMax", "reuseValues", "disableOpenAPIValidation", "disableValidation", "disableValidationOnInstall", "missingFileHandlerConfig", "hooks", "unitTests", "description", "secrets", "valuesTemplate", "setTemplate", "apiVersions", "kubeVersion", "env", "valuesPathPrefix", "insecureSkipTLSVerify", "plainHttp", "verifyTemplate", "waitTemplate", "installedTemplate", "conditionTemplate", "dependencies", "jsonPatches", "strategicMergePatches", "transformers", "adopt", "forceGoGetter", "forceNamespace", "skipDeps", "skipRefresh", "resolveOCIVersions", "postRenderer", "skipSchemaValidation", "postRendererArgs", "cascade", "suppressOutputLineRegex", "disableAutoDetectedKubeVersionForDiff", "inherit", "suppressDiff", "deleteWait", "deleteTimeout"},
	}
	setKeys = keySet{
		supported:   []string{"name", "value"},
		unsupported: []string{"file", "values"},
	}
	subHelmfileKeys = keySet{
		supported:   []string{"path", "values"},
		unsupported: []string{"selectors", "selectorsInherited", "inherits"},
	}
)

type keySet struct{ supported, unsupported []string }

func (k keySet) check(file string, lineOffset int, n *yamlv3.Node, where string) error {
	if n.Kind != yamlv3.MappingNode {
		if n.Kind == yamlv3.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		return fmt.Errorf("%s:%d: %s must be a map", file, lineOffset+n.Line, where)
	}
	for i := 0; i < len(n.Content); i += 2 {
		key := n.Content[i]
		switch {
		case contains(k.supported, key.Value):
		case contains(k.unsupported, key.Value):
			return fmt.Errorf("%s:%d: %s: helmfile's key %q is not supported by kubectl chart stack", file, lineOffset+key.Line, where, key.Value)
		default:
			return fmt.Errorf("%s:%d: %s: unknown key %q", file, lineOffset+key.Line, where, key.Value)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// stateSpec is one layer of a state file: a part, a base or their merge.
type stateSpec struct {
	Environments map[string]envSpec `yaml:"environments"`
	Repositories []repoSpec         `yaml:"repositories"`
	HelmDefaults defaultsSpec       `yaml:"helmDefaults"`
	Releases     []releaseSpec      `yaml:"releases"`
	Bases        []string           `yaml:"bases"`
	Helmfiles    []subHelmfileSpec  `yaml:"-"`
	Values       []any              `yaml:"values"`
}

type envSpec struct {
	Values             []any   `yaml:"values"`
	KubeContext        string  `yaml:"kubeContext"`
	MissingFileHandler *string `yaml:"missingFileHandler"`
}

type repoSpec struct {
	Name     string `yaml:"name"`
	URL      string `yaml:"url"`
	OCI      bool   `yaml:"oci"`
	Username string `yaml:"username"`
	Password string `yaml:"password"`
}

type defaultsSpec struct {
	KubeContext     string `yaml:"kubeContext"`
	Wait            bool   `yaml:"wait"`
	WaitForJobs     bool   `yaml:"waitForJobs"`
	Timeout         int    `yaml:"timeout"`
	CreateNamespace *bool  `yaml:"createNamespace"`
}

type releaseSpec struct {
	Name               string            `yaml:"name"`
	Namespace          string            `yaml:"namespace"`
	Chart              string            `yaml:"chart"`
	Version            string            `yaml:"version"`
	Values             []any             `yaml:"values"`
	Set                []setSpec         `yaml:"set"`
	SetString          []setSpec         `yaml:"setString"`
	Needs              []string          `yaml:"needs"`
	Labels             map[string]string `yaml:"labels"`
	Installed          *bool             `yaml:"installed"`
	CreateNamespace    *bool             `yaml:"createNamespace"`
	Wait               *bool             `yaml:"wait"`
	WaitForJobs        *bool             `yaml:"waitForJobs"`
	Timeout            *int              `yaml:"timeout"`
	KubeContext        string            `yaml:"kubeContext"`
	Condition          string            `yaml:"condition"`
	MissingFileHandler *string           `yaml:"missingFileHandler"`

	// source is file:line of the release, for errors.
	source string
}

type setSpec struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

type subHelmfileSpec struct {
	Path   string
	Values []any
}

// parseLayer reads one rendered document stream (a part) of file: its keys
// checked, its documents merged as helmfile merges them (lists appended).
func parseLayer(file string, lineOffset int, content []byte) (stateSpec, error) {
	var out stateSpec
	dec := yamlv3.NewDecoder(bytesReader(content))
	for {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			if isEOF(err) {
				return out, nil
			}
			return out, fmt.Errorf("%s: %w", file, offsetYAMLError(err, lineOffset))
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind == yamlv3.ScalarNode && root.Tag == "!!null" {
			continue
		}
		if err := checkKeys(file, lineOffset, root); err != nil {
			return out, err
		}
		var spec stateSpec
		if err := decodeState(root, &spec); err != nil {
			return out, fmt.Errorf("%s: %w", file, offsetYAMLError(err, lineOffset))
		}
		for i, n := range releaseNodes(root) {
			spec.Releases[i].source = fmt.Sprintf("%s:%d", file, lineOffset+n.Line)
		}
		out = mergeLayers(out, spec, true)
	}
}

// checkKeys walks a state document and refuses keys it does not read.
func checkKeys(file string, off int, root *yamlv3.Node) error {
	if err := topKeys.check(file, off, root, "state file"); err != nil {
		return err
	}
	for i := 0; i < len(root.Content); i += 2 {
		key, val := root.Content[i].Value, root.Content[i+1]
		var err error
		switch key {
		case "environments":
			err = eachMapValue(val, func(name string, n *yamlv3.Node) error {
				return envKeys.check(file, off, n, "environments."+name)
			})
		case "repositories":
			err = eachItem(val, func(i int, n *yamlv3.Node) error {
				return repoKeys.check(file, off, n, fmt.Sprintf("repositories[%d]", i))
			})
		case "helmDefaults":
			err = defaultsKeys.check(file, off, val, "helmDefaults")
		case "helmfiles":
			err = eachItem(val, func(i int, n *yamlv3.Node) error {
				if n.Kind == yamlv3.ScalarNode {
					return nil
				}
				return subHelmfileKeys.check(file, off, n, fmt.Sprintf("helmfiles[%d]", i))
			})
		case "releases":
			err = eachItem(val, func(i int, n *yamlv3.Node) error {
				where := fmt.Sprintf("releases[%d]", i)
				if err := releaseKeys.check(file, off, n, where); err != nil {
					return err
				}
				for j := 0; j+1 < len(n.Content); j += 2 {
					if k := n.Content[j].Value; k == "set" || k == "setString" {
						if err := eachItem(n.Content[j+1], func(s int, sn *yamlv3.Node) error {
							return setKeys.check(file, off, sn, fmt.Sprintf("%s.%s[%d]", where, k, s))
						}); err != nil {
							return err
						}
					}
				}
				return nil
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func eachItem(n *yamlv3.Node, f func(int, *yamlv3.Node) error) error {
	if n.Kind != yamlv3.SequenceNode {
		return nil
	}
	for i, c := range n.Content {
		if err := f(i, c); err != nil {
			return err
		}
	}
	return nil
}

func eachMapValue(n *yamlv3.Node, f func(string, *yamlv3.Node) error) error {
	if n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := f(n.Content[i].Value, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func releaseNodes(root *yamlv3.Node) []*yamlv3.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "releases" && root.Content[i+1].Kind == yamlv3.SequenceNode {
			return root.Content[i+1].Content
		}
	}
	return nil
}

// decodeState decodes a checked document; helmfiles entries are a path or a map.
func decodeState(root *yamlv3.Node, spec *stateSpec) error {
	var raw struct {
		stateSpec `yaml:",inline"`
		Helmfiles []yamlv3.Node `yaml:"helmfiles"`
	}
	if err := root.Decode(&raw); err != nil {
		return err
	}
	*spec = raw.stateSpec
	for _, n := range raw.Helmfiles {
		var sub subHelmfileSpec
		if n.Kind == yamlv3.ScalarNode {
			sub.Path = n.Value
		} else {
			var m struct {
				Path   string `yaml:"path"`
				Values []any  `yaml:"values"`
			}
			if err := n.Decode(&m); err != nil {
				return err
			}
			sub.Path, sub.Values = m.Path, m.Values
		}
		spec.Helmfiles = append(spec.Helmfiles, sub)
	}
	return nil
}

// mergeLayers merges src over dst as helmfile does: documents of one part
// and bases append lists (appendLists); later parts replace them.
func mergeLayers(dst, src stateSpec, appendLists bool) stateSpec {
	if dst.Environments == nil {
		dst.Environments = map[string]envSpec{}
	}
	names := make([]string, 0, len(src.Environments))
	for name := range src.Environments {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := src.Environments[name]
		d, ok := dst.Environments[name]
		if !ok || !appendLists {
			dst.Environments[name] = s
			continue
		}
		if s.KubeContext != "" {
			d.KubeContext = s.KubeContext
		}
		if s.MissingFileHandler != nil {
			d.MissingFileHandler = s.MissingFileHandler
		}
		d.Values = append(append([]any{}, d.Values...), s.Values...)
		dst.Environments[name] = d
	}
	list := func(d, s []any) []any {
		if appendLists {
			return append(d, s...)
		}
		if len(s) > 0 {
			return s
		}
		return d
	}
	dst.Values = list(dst.Values, src.Values)
	if appendLists {
		dst.Repositories = append(dst.Repositories, src.Repositories...)
		dst.Releases = append(dst.Releases, src.Releases...)
		dst.Helmfiles = append(dst.Helmfiles, src.Helmfiles...)
		dst.Bases = append(dst.Bases, src.Bases...)
	} else {
		if len(src.Repositories) > 0 {
			dst.Repositories = src.Repositories
		}
		if len(src.Releases) > 0 {
			dst.Releases = src.Releases
		}
		if len(src.Helmfiles) > 0 {
			dst.Helmfiles = src.Helmfiles
		}
		if len(src.Bases) > 0 {
			dst.Bases = src.Bases
		}
	}
	// helmDefaults: set fields override (helmfile merges structs field by field).
	s, d := src.HelmDefaults, &dst.HelmDefaults
	if s.KubeContext != "" {
		d.KubeContext = s.KubeContext
	}
	if s.Wait {
		d.Wait = true
	}
	if s.WaitForJobs {
		d.WaitForJobs = true
	}
	if s.Timeout != 0 {
		d.Timeout = s.Timeout
	}
	if s.CreateNamespace != nil {
		d.CreateNamespace = s.CreateNamespace
	}
	return dst
}
