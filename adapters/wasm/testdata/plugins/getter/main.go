//go:build wasip1

// Command getter is a getter/v1 test plugin: a values document naming the URL
// (or, for a URL with "env", some of its environment), or for a URL ending in
// .tgz a chart archive; a URL with "echo-input" fails with its input message.
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/testdata/pdk"
)

//go:embed hello-0.1.0.tgz
var chart []byte

func main() {}

//go:wasmexport helm_plugin_main
func pluginMain() uint32 {
	var in struct {
		Href     string `json:"href"`
		Protocol string `json:"protocol"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.Error("bad input: " + err.Error())
		return 1
	}
	data := []byte(fmt.Sprintf("fromGetter: %q\nprotocol: %s\n", in.Href, in.Protocol))
	switch {
	case strings.Contains(in.Href, "echo-input"):
		pdk.Error("input: " + string(pdk.Input()))
		return 1
	case strings.Contains(in.Href, "missing"):
		pdk.Error("no such object: " + in.Href)
		return 1
	case strings.HasSuffix(in.Href, ".tgz"):
		data = chart
	case strings.Contains(in.Href, "env"):
		data = []byte(fmt.Sprintf("fromGetter: %q\n", os.Getenv("HELM_NAMESPACE")+" "+os.Getenv("HELM_PLUGINS")+" "+os.Getenv("HOME")))
	}
	out, _ := json.Marshal(struct {
		Data []byte `json:"data"`
	}{data})
	pdk.Output(out)
	return 0
}
