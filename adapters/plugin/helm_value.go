package plugin

import "fmt"

// Helm 4's subprocess runtime types, mirrored field for field, so that fmt
// prints a plugin as Helm's getter errors print it.
type (
	helmPlatformCommand struct {
		OperatingSystem, Architecture, Command string
		Args                                   []string
	}
	helmProtocolCommand struct {
		Protocols       []string
		PlatformCommand []helmPlatformCommand
	}
	helmRuntimeConfigSubprocess struct {
		PlatformCommand  []helmPlatformCommand
		PlatformHooks    map[string][]helmPlatformCommand
		ProtocolCommands []helmProtocolCommand
	}
)

func helmCommands(cmds []PlatformCommand) []helmPlatformCommand {
	var out []helmPlatformCommand
	for _, c := range cmds {
		out = append(out, helmPlatformCommand{c.OS, c.Arch, c.Command, c.Args})
	}
	return out
}

// helmSubprocessString is how Helm 4 quotes a subprocess getter plugin in its
// error: its plugin value printed with %q.
func helmSubprocessString(p *Plugin) string {
	var rc helmRuntimeConfigSubprocess
	if r := p.RuntimeConfig; r != nil {
		rc.PlatformCommand = helmCommands(r.PlatformCommand)
		for name, cmds := range r.PlatformHooks {
			if rc.PlatformHooks == nil {
				rc.PlatformHooks = map[string][]helmPlatformCommand{}
			}
			rc.PlatformHooks[name] = helmCommands(cmds)
		}
		for _, pc := range r.ProtocolCommands {
			rc.ProtocolCommands = append(rc.ProtocolCommands, helmProtocolCommand{pc.Protocols, helmCommands(pc.PlatformCommand)})
		}
	}
	var protocols []string
	if p.Config != nil {
		protocols = p.Config.Protocols
	}
	// Helm's config ends with expandHookArgs, false for a v1 plugin; its value
	// is printed with %q, which prints a bool as a bad verb.
	plain := fmt.Sprintf("{%v %v %v false}", rc.PlatformCommand, rc.PlatformHooks, rc.ProtocolCommands)
	quoted := fmt.Sprintf("{%q %q %q %%!q(bool=false)}", rc.PlatformCommand, rc.PlatformHooks, rc.ProtocolCommands)
	return fmt.Sprintf("&{{%q %q %q %q %q %q %%!q(*schema.ConfigGetterV1=&{%s}) %%!q(*plugin.RuntimeConfigSubprocess=&%s)} %q %s map[]}",
		p.APIVersion, p.Name, p.Type, p.Runtime, p.Version, p.SourceURL, nonNilSlice(protocols), plain, p.Dir, quoted)
}
