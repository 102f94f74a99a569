package plugin

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// getWasm fetches href through a getter/v1 extism/v1 plugin as Helm 4 does: the
// input names the URL and options, the output carries the content.
func (g *Getter) getWasm(ctx context.Context, href string) ([]byte, error) {
	p := g.plugin
	u, err := url.Parse(href)
	if err != nil {
		return nil, err
	}
	in := InputMessageGetterV1{Href: href, Protocol: u.Scheme, Options: GetterOptionsV1{
		URL: href, CertFile: g.CertFile, KeyFile: g.KeyFile, CAFile: g.CAFile, AcceptHeader: g.AcceptHeader,
		InsecureSkipVerifyTLS: g.InsecureSkipTLS, PlainHTTP: g.PlainHTTP,
		Username: g.Username, Password: g.Password, PassCredentialsAll: g.PassCredentialsAll,
	}}
	out, err := g.registry.invokeWasm(ctx, p, in, WasmIO{Env: g.Env})
	if err == nil {
		var msg OutputMessageGetterV1
		if err = decodeWasmOutput(out, &msg); err == nil {
			return msg.Data, nil
		}
	}
	return nil, fmt.Errorf("plugin %s failed to invoke: %w", helmPluginString(p), err)
}

// helmPluginString is how Helm 4 quotes a Wasm plugin in a getter's error: its
// plugin value printed with %q (the address of its runtime is not ours to
// print, a fixed one stands for it).
func helmPluginString(p *Plugin) string {
	var rc WasmConfig
	if p.RuntimeConfig != nil {
		rc = p.RuntimeConfig.WasmConfig
	}
	rcs := fmt.Sprintf("%%!q(*plugin.RuntimeConfigExtismV1=&{{%d %d %d} %v %v {%t} %d %v %s})",
		rc.Memory.MaxPages, rc.Memory.MaxHTTPResponseBytes, rc.Memory.MaxVarBytes, nonNilMap(rc.Config),
		nonNilSlice(rc.AllowedHosts), rc.FileSystem.CreateTempDir, rc.Timeout, nonNilSlice(rc.HostFunctions), rc.EntryFuncName)
	cfg := fmt.Sprintf("%%!q(*schema.ConfigGetterV1=&{%v})", nonNilSlice(p.Schemes()))
	return fmt.Sprintf("&{{%q %q %q %q %q %q %s %s} %q %s %%!q(*plugin.RuntimeExtismV1=&{map[] 0xc000000000})}",
		p.APIVersion, p.Name, p.Type, p.Runtime, p.Version, p.SourceURL, cfg, rcs, p.Dir, rcs)
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilSlice(s []string) string { return "[" + strings.Join(s, " ") + "]" }
