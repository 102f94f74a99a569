package generator

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Namespace words in a sequence's command lines: the runner puts in each
// program's own namespaces. Every command runs in NS unless it says
// otherwise (HELM_NAMESPACE), so no step can reach another program's objects.
const (
	NS  = "$NS"
	NS2 = "$NS2"
)

// Sequence is a series of release commands run in order on one cluster, in
// a directory that holds Files.
type Sequence struct {
	Name  string
	Files []File
	// Steps are command lines, each in groups as Case.Args: the first group
	// is the command and its positional arguments, every other one a flag.
	Steps []Step
}

// Step is one command line of a sequence.
type Step struct {
	Args [][]string
}

// Argv is the step's command line without the program name.
func (s Step) Argv() []string {
	return Case{Args: s.Args}.Argv()
}

// Clone copies the sequence so that a shrinker can edit the copy.
func (s Sequence) Clone() Sequence {
	out := Sequence{Name: s.Name, Files: append([]File(nil), s.Files...)}
	for _, st := range s.Steps {
		out.Steps = append(out.Steps, Step{Args: Case{Args: st.Args}.Clone().Args})
	}
	return out
}

// Write puts the sequence's files under dir.
func (s Sequence) Write(dir string) error {
	return Case{Files: s.Files}.Write(dir)
}

// String is the sequence in full, as a reproducer: its files, then the
// commands to run from the directory that holds them.
func (s Sequence) String() string {
	var b strings.Builder
	b.WriteString(Case{Files: s.Files}.String()[len("args: \n"):])
	b.WriteString("--- commands (export NS and NS2, two empty namespaces; HELM_NAMESPACE=$NS):\n")
	for _, st := range s.Steps {
		b.WriteString("helm " + strings.Join(quoteAll(st.Argv()), " ") + "\n")
	}
	return b.String()
}

// Sequence draws release-command sequence number i: a chart, values files
// and three to eight steps of install, upgrade, rollback, test, uninstall and
// the read commands, on two release names so that steps meet releases that
// exist, are gone or never were.
func (g Generator) Sequence(i int) Sequence {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)|1<<40))
	d := &draw{r: r, dialect: g.dialect}
	s := Sequence{Name: fmt.Sprintf("%s-seq-%d-%d", g.dialect, g.seed, i)}
	s.Files = d.releaseChart()
	n := 3 + d.r.IntN(6)
	for j := 0; j < n; j++ {
		s.Steps = append(s.Steps, Step{Args: d.releaseStep(j == 0)})
	}
	return s
}

// releaseNames are the names steps use: two good ones most of the time.
func (d *draw) releaseName() string {
	if d.chance(0.95) {
		return d.pick([]string{"r1", "r1", "r2"})
	}
	return d.pick([]string{"Bad_Name", "a-release-name-that-is-longer-than-fifty-three-characters", "r1.x"})
}

// releaseStep draws one command line; the first step installs, mostly.
func (d *draw) releaseStep(first bool) [][]string {
	n := d.r.IntN(100)
	if first && n < 70 {
		return d.installArgs()
	}
	switch {
	case n < 25:
		return d.installArgs()
	case n < 50:
		return d.upgradeArgs()
	case n < 60:
		return d.rollbackArgs()
	case n < 67:
		return d.testArgs()
	case n < 75:
		return d.uninstallArgs()
	default:
		return d.readArgs()
	}
}

// chartRef is the chart a step installs: mostly the drawn one, sometimes its
// next version (which breaks what the first made) or none.
func (d *draw) chartRef() string {
	return d.pick([]string{"./chart", "./chart", "./chart", "./chart", "./chart2", "./chart2", "./chart2", "./missing"})
}

// releaseValueFlag changes values the chart reads.
func (d *draw) releaseValueFlag() []string {
	switch d.r.IntN(6) {
	case 0:
		return []string{"-f", d.pick([]string{"v1.yaml", "v2.yaml", "missing.yaml"})}
	case 1:
		return []string{"--set", d.pick([]string{"str=changed", "replicas=2", "port=8080", "deploy.enabled=false", "deploy.enabled=true", "hookJob=true"})}
	case 2:
		return []string{"--set", d.pick([]string{"testFail=true", "broken=true", "selector=other", "list={a,b}", "map.k=v"})}
	case 3:
		return []string{"--set-string", d.pick([]string{"str=007", "replicas=1"})}
	case 4:
		return []string{"--set-json", d.pick([]string{`map={"k":1}`, `list=[1,2]`})}
	default:
		return []string{"--set", "num=" + d.pick([]string{"1", "2", "3"})}
	}
}

// dialectFlags are the flags whose name the dialect's Helm chose: Helm 4
// renamed --atomic and --force, Helm 3 has the old names. The other dialect's
// name is drawn now and then, to be refused with Helm's words.
func (d *draw) dialectFlag(helm3, helm4 []string) []string {
	own, other := helm4, helm3
	if d.dialect == Helm3 {
		own, other = helm3, helm4
	}
	if d.chance(0.15) {
		return other
	}
	return own
}

func (d *draw) installArgs() [][]string {
	args := [][]string{{"install", d.releaseName(), d.chartRef()}}
	if d.chance(0.04) {
		args = [][]string{{"install", d.chartRef()}, {"--generate-name"}}
	}
	flags := func() []string {
		switch d.r.IntN(14) {
		case 0:
			return []string{"--description", d.pick([]string{"first", "a b", ""})}
		case 1:
			return d.dryRun()
		case 2:
			return []string{"--replace"}
		case 3:
			return d.dialectFlag([]string{"--atomic"}, []string{"--rollback-on-failure"})
		case 4:
			return []string{"-o", d.pick([]string{"json", "yaml", "table", "bogus"})}
		case 5:
			return []string{"--no-hooks"}
		case 6:
			return []string{"--labels", d.pick([]string{"team=a", "a=1,b=2", "bad"})}
		case 7:
			return []string{"--hide-notes"}
		case 8:
			return []string{"--create-namespace"}
		case 9:
			return []string{"--wait", "--timeout", "60s"}
		case 10:
			return []string{"--skip-crds"}
		default:
			return d.releaseValueFlag()
		}
	}
	for k, m := 0, d.r.IntN(4); k < m; k++ {
		args = append(args, flags())
	}
	if d.chance(0.05) {
		args = append(args, []string{"-n", NS2}, []string{"--create-namespace"})
	}
	return args
}

func (d *draw) dryRun() []string {
	if d.dialect == Helm4 || d.chance(0.3) {
		return []string{"--dry-run=" + d.pick([]string{"client", "server", "true", "none", "bogus"})}
	}
	return []string{"--dry-run"}
}

func (d *draw) upgradeArgs() [][]string {
	args := [][]string{{"upgrade", d.releaseName(), d.chartRef()}}
	flags := func() []string {
		switch d.r.IntN(16) {
		case 0:
			return []string{"--install"}
		case 1:
			return []string{"--reuse-values"}
		case 2:
			return []string{"--reset-values"}
		case 3:
			return []string{"--reset-then-reuse-values"}
		case 4:
			return d.dialectFlag([]string{"--force"}, []string{"--force-replace"})
		case 5:
			return []string{"--description", "second"}
		case 6:
			return d.dryRun()
		case 7:
			return []string{"--history-max", d.pick([]string{"1", "2", "0"})}
		case 8:
			return d.dialectFlag([]string{"--atomic"}, []string{"--rollback-on-failure"})
		case 9:
			return []string{"--cleanup-on-fail"}
		case 10:
			return []string{"-o", d.pick([]string{"json", "yaml"})}
		case 11:
			return []string{"--no-hooks"}
		default:
			return d.releaseValueFlag()
		}
	}
	for k, m := 0, d.r.IntN(4); k < m; k++ {
		args = append(args, flags())
	}
	return args
}

func (d *draw) rollbackArgs() [][]string {
	cmd := []string{"rollback", d.releaseName()}
	if d.chance(0.8) {
		cmd = append(cmd, d.pick([]string{"1", "1", "2", "3", "0", "9", "x"}))
	}
	args := [][]string{cmd}
	flags := [][]string{
		{"--dry-run"}, {"--no-hooks"}, {"--cleanup-on-fail"}, {"--history-max", "2"},
		d.dialectFlag([]string{"--force"}, []string{"--force-replace"}),
		d.dialectFlag([]string{"--recreate-pods"}, []string{"--description", "back"}),
	}
	for k, m := 0, d.r.IntN(3); k < m; k++ {
		args = append(args, flags[d.r.IntN(len(flags))])
	}
	return args
}

func (d *draw) testArgs() [][]string {
	args := [][]string{{"test", d.releaseName()}}
	if d.chance(0.3) {
		args = append(args, []string{"--filter", d.pick([]string{"name=r1-test", "!name=r1-test", "name=other"})})
	}
	if d.chance(0.2) {
		args = append(args, []string{"--logs"})
	}
	if d.chance(0.1) {
		args = append(args, []string{"--timeout", "90s"})
	}
	return args
}

func (d *draw) uninstallArgs() [][]string {
	cmd := []string{"uninstall", d.releaseName()}
	if d.chance(0.1) {
		cmd = append(cmd, d.releaseName())
	}
	args := [][]string{cmd}
	flags := [][]string{{"--keep-history"}, {"--keep-history"}, {"--dry-run"}, {"--no-hooks"}, {"--description", "gone"}, {"--ignore-not-found"}, {"--cascade", d.pick([]string{"background", "foreground", "orphan", "bogus"})}}
	for k, m := 0, d.r.IntN(3); k < m; k++ {
		args = append(args, flags[d.r.IntN(len(flags))])
	}
	return args
}

// readArgs draws list, history, status or get.
func (d *draw) readArgs() [][]string {
	out := []string{"-o", d.pick([]string{"json", "yaml", "table"})}
	switch d.r.IntN(5) {
	case 0:
		args := [][]string{{"list"}}
		flags := [][]string{out, {"-a"}, {"--short"}, {"--uninstalled"}, {"--superseded"}, {"--failed"}, {"--deployed"}, {"--pending"}, {"-r"}, {"-d"}, {"-f", "r1"}, {"--max", "1"}, {"--offset", "1"}, {"--no-headers"}}
		for k, m := 0, d.r.IntN(3); k < m; k++ {
			args = append(args, flags[d.r.IntN(len(flags))])
		}
		return args
	case 1:
		args := [][]string{{"history", d.releaseName()}}
		if d.chance(0.6) {
			args = append(args, out)
		}
		if d.chance(0.2) {
			args = append(args, []string{"--max", "2"})
		}
		return args
	case 2:
		args := [][]string{{"status", d.releaseName()}}
		flags := [][]string{{"-o", d.pick([]string{"json", "yaml"})}, {"--revision", d.pick([]string{"1", "2", "7"})}, {"--show-desc"}, {"--show-resources"}}
		for k, m := 0, d.r.IntN(3); k < m; k++ {
			args = append(args, flags[d.r.IntN(len(flags))])
		}
		return args
	default:
		what := d.pick([]string{"values", "values", "manifest", "notes", "hooks", "metadata", "all"})
		args := [][]string{{"get", what, d.releaseName()}}
		if d.chance(0.3) {
			args = append(args, []string{"--revision", d.pick([]string{"1", "2", "5"})})
		}
		if what == "values" && d.chance(0.5) {
			args = append(args, []string{"--all"})
		}
		if (what == "values" || what == "metadata") && d.chance(0.6) {
			args = append(args, out)
		}
		return args
	}
}
