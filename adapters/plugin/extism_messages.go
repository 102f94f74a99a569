package plugin

import (
	"bytes"
	"context"
	"os"
	"strings"
	"time"
)

// The messages extism/v1 plugins exchange, shaped (and named, for the words of
// JSON errors) as Helm 4's: a *bytes.Buffer has no exported fields, so Helm 4
// marshals it as {} and cannot read one back but from {}.

// InputMessageCLIV1 is a cli/v1 plugin's input.
type InputMessageCLIV1 struct {
	ExtraArgs []string `json:"extraArgs"`
}

// OutputMessageCLIV1 is a cli/v1 plugin's output; Helm 4 reads and drops it.
type OutputMessageCLIV1 struct {
	Data *bytes.Buffer `json:"data"`
}

// GetterOptionsV1 are a getter's options (Go field names on the wire).
type GetterOptionsV1 struct {
	URL                   string
	CertFile              string
	KeyFile               string
	CAFile                string
	UNTar                 bool
	InsecureSkipVerifyTLS bool
	PlainHTTP             bool
	AcceptHeader          string
	Username              string
	Password              string
	PassCredentialsAll    bool
	UserAgent             string
	Version               string
	Timeout               time.Duration
}

// InputMessageGetterV1 is a getter/v1 plugin's input.
type InputMessageGetterV1 struct {
	Href     string          `json:"href"`
	Protocol string          `json:"protocol"`
	Options  GetterOptionsV1 `json:"options"`
}

// OutputMessageGetterV1 is a getter/v1 plugin's output: the content, base64.
type OutputMessageGetterV1 struct {
	Data []byte `json:"data"`
}

// InputMessagePostRendererV1 is a postrenderer/v1 plugin's input.
type InputMessagePostRendererV1 struct {
	Manifests *bytes.Buffer `json:"manifests"`
	ExtraArgs []string      `json:"extraArgs"`
}

// OutputMessagePostRendererV1 is a postrenderer/v1 plugin's output.
type OutputMessagePostRendererV1 struct {
	Manifests *bytes.Buffer `json:"manifests"`
}

// RunWasmCLI runs a cli/v1 extism/v1 plugin as Helm 4 does: args as its
// extraArgs (none when it ignores flags), this process's environment plus env,
// the streams as its WASI ones; the output must be a cli/v1 output message.
func (r *Registry) RunWasmCLI(ctx context.Context, p *Plugin, args []string, env map[string]string, wio WasmIO) error {
	extra := []string{}
	if !p.ignoreFlags() {
		extra = append(extra, args...)
	}
	wio.Env = environ(env)
	out, err := r.invokeWasm(ctx, p, InputMessageCLIV1{ExtraArgs: extra}, wio)
	if err != nil {
		return err
	}
	return decodeWasmOutput(out, &OutputMessageCLIV1{})
}

// environ is this process's environment overlaid with env.
func environ(env map[string]string) map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			out[k] = v
		}
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}
