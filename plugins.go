// Package kubectlchart holds project files compiled into the binary.
package kubectlchart

import (
	_ "embed"
	"slices"
)

//go:embed plugins.yaml
var defaultPlugins []byte

// DefaultPluginsName names the built-in registry in messages.
const DefaultPluginsName = "built-in plugins.yaml"

// DefaultPlugins returns the built-in plugins.yaml.
func DefaultPlugins() []byte { return slices.Clone(defaultPlugins) }
