//go:build wasip1

// Command postrenderer is a postrenderer/v1 test plugin: it returns the
// manifests it was given (as Helm 4 marshals them), with a ConfigMap naming its
// arguments appended when they are text.
package main

import (
	"encoding/json"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/testdata/pdk"
)

func main() {}

//go:wasmexport helm_plugin_main
func pluginMain() uint32 {
	var in struct {
		Manifests json.RawMessage `json:"manifests"`
		ExtraArgs []string        `json:"extraArgs"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.Error("bad input: " + err.Error())
		return 1
	}
	out := in.Manifests
	if len(in.ExtraArgs) > 0 && in.ExtraArgs[0] == "as-string" {
		out = json.RawMessage(`"kind: ConfigMap\n"`)
	}
	var text string
	if json.Unmarshal(in.Manifests, &text) == nil {
		text += "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-wasm\ndata:\n  args: " +
			strings.Join(in.ExtraArgs, ",") + "\n"
		out, _ = json.Marshal(text)
	}
	res, _ := json.Marshal(map[string]json.RawMessage{"manifests": out})
	pdk.Output(res)
	return 0
}
