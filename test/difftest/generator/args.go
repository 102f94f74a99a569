package generator

// commandLine draws a command of template, lint, show, package, dependency list or verify with
// flags that command accepts, and now and then one it does not or one with an invalid value.
func (d *draw) commandLine() [][]string {
	if d.postRenderOnly {
		return d.templateArgs()
	}
	n := d.r.IntN(100)
	switch {
	case n < 60:
		return d.templateArgs()
	case n < 72:
		return d.lintArgs()
	case n < 82:
		return [][]string{{"show", d.pick([]string{"chart", "values", "readme", "crds", "all"}), ChartDir}}
	case n < 90:
		return d.packageArgs()
	case n < 96:
		return [][]string{{"dependency", "list", d.pick([]string{ChartDir, ChartDir, "missing-dir"})}}
	default:
		return [][]string{{"verify", d.pick([]string{ChartDir, "missing.tgz"})}}
	}
}

func (d *draw) templateArgs() [][]string {
	names := []string{"rel", "rel", "my-release", "Bad_Name", "a-very-long-release-name-that-is-more-than-fifty-three-chars"}
	args := [][]string{{"template", d.pick(names), ChartDir}}
	n := d.r.IntN(4)
	for i := 0; i < n; i++ {
		args = append(args, d.valueFlag())
	}
	flags := [][]string{
		{"--namespace", d.pick([]string{"ns1", "default", "Bad_NS"})},
		{"--kube-version", d.pick([]string{"1.22.0", "v1.29.3", "1.30", "abc", "1.37.0-gke.1"})},
		{"--api-versions", d.pick([]string{"x.example/v1", "apps/v1/Deployment", "b/v1,a/v1"})},
		{"--include-crds"}, {"--skip-crds"}, {"--skip-tests"}, {"--is-upgrade"}, {"--no-hooks"},
		{"--show-only", d.pick([]string{"templates/t0.yaml", "templates/t1.yaml", "templates/missing.yaml", "charts/sub10/templates/t0.yaml"})},
		{"--skip-schema-validation"}, {"--render-subchart-notes"}, {"--dependency-update"},
		{"--name-template", d.pick([]string{"{{ \"fixed\" }}", "{{ .Bogus }}", "x-{{ printf \"%s\" \"y\" }}"})},
		{"--debug"}, {"--devel"}, {"--version", "0.1.0"},
		{"--bogus-flag"},
	}
	m := d.r.IntN(4)
	for i := 0; i < m; i++ {
		f := flags[d.r.IntN(len(flags))]
		args = append(args, f)
	}
	if d.postRenderOnly || d.chance(0.1) {
		files, prFlags := d.postRender()
		d.commandFiles = append(d.commandFiles, files...)
		args = append(args, prFlags...)
	}
	return args
}

func (d *draw) valueFlag() []string {
	switch d.r.IntN(7) {
	case 0:
		return []string{"-f", d.pick([]string{"extra.yaml", "extra.yaml", "missing.yaml"})}
	case 1:
		return []string{"--set", d.pick([]string{"str=x", "int=007", "list[1]=z", "map.a=null", "a.b.c=1,d=2", "bool=true", "str=", "huge=99999999999999999999", "global.g=set", "nested.a.b=null", "x\\.y=1", "list[0].a=1", "sub10.enabled=false", "tags.front=true", "k={a,b}"})}
	case 2:
		return []string{"--set-string", d.pick([]string{"int=5", "bool=false", "str=yes", "null=null"})}
	case 3:
		return []string{"--set-json", d.pick([]string{`map={"x":[1,null]}`, `int=1.0`, `list=[]`, `str="s"`, `bad={`, `{"str":"top"}`})}
	case 4:
		return []string{"--set-literal", d.pick([]string{"str=a,b", "str={x}", "int=1"})}
	case 5:
		return []string{"--set-file", d.pick([]string{"str=setfile.txt", "str=missing.txt"})}
	default:
		return []string{"--set", d.pick([]string{"str=a\\,b", "int=-1", "float=1e2", "map=null", "emptyList={}", "list={1,2}"})}
	}
}

func (d *draw) lintArgs() [][]string {
	args := [][]string{{"lint", ChartDir}}
	flags := [][]string{{"--strict"}, {"--quiet"}, {"--with-subcharts"}, {"-f", "extra.yaml"}, {"--set", "str=x"}, {"--kube-version", d.pick([]string{"1.22.0", "abc"})}, {"--namespace", "ns"}, {"--skip-schema-validation"}}
	m := d.r.IntN(3)
	for i := 0; i < m; i++ {
		args = append(args, flags[d.r.IntN(len(flags))])
	}
	return args
}

func (d *draw) packageArgs() [][]string {
	args := [][]string{{"package", ChartDir}}
	flags := [][]string{{"--destination", "out"}, {"--version", d.pick([]string{"9.9.9", "bogus"})}, {"--app-version", "7.7"}, {"--dependency-update"}, {"--sign"}}
	m := d.r.IntN(3)
	for i := 0; i < m; i++ {
		args = append(args, flags[d.r.IntN(len(flags))])
	}
	return args
}
