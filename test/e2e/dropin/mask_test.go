//go:build e2e

package dropin

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// volatile are the parts of an output that differ from run to run, whoever
// runs: each becomes its placeholder.
func volatile() []struct {
	re   *regexp.Regexp
	with string
} {
	return []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uid>"},
		// RFC 3339 and Go's time.String().
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[ ]?[+-]\d{2}:?\d{2}( [A-Z]{2,5})?)?`), "<time>"},
		// time.ANSIC, Helm's LAST DEPLOYED.
		{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}`), "<time>"},
		{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "<duration>"},
		// chart-testing's release names: the chart's name and ten random characters.
		{regexp.MustCompile(`\bprobe-[a-z0-9]{10}\b`), "probe-<random>"},
		// helmfile's and Helm's temporary directories.
		{regexp.MustCompile(`(/tmp/[A-Za-z_.-]*?)\d{6,}\b`), "$1<random>"},
		// Not volatile but by design (README): our version is the dialect's Helm
		// release with SemVer build metadata naming us (v4.3.1+kubectl-chart.VERSION),
		// which ct reads with version --template.
		{regexp.MustCompile(`(v\d+\.\d+\.\d+)\+kubectl-chart\.[0-9A-Za-z.-]+`), "$1"},
		// Release records' labels: seconds since 1970.
		{regexp.MustCompile(`\b(createdAt|modifiedAt)=\d+`), "$1=<unix time>"},
		// Service addresses the cluster chose.
		{regexp.MustCompile(`\b10\.96\.\d+\.\d+\b`), "<ip>"},
		// A masked cell's padding in a table depends on what it hid: before a
		// tab (Helm's tables) none is left, before a cell one space.
		{regexp.MustCompile(`(<time>|<duration>|<ip>) *\t`), "$1\t"},
		{regexp.MustCompile(`(<time>|<duration>|<ip>) +`), "$1 "},
		// And so does the padding of its column's heading.
		{regexp.MustCompile(`\b(UPDATED|CLUSTER-IP|DURATION) *\t`), "$1\t"},
		{regexp.MustCompile(`\b(UPDATED|CLUSTER-IP|DURATION) +`), "$1 "},
		// Pods' generated suffixes (after their ReplicaSet's hash).
		{regexp.MustCompile(`(-[bcdfghjklmnpqrstvwxz2-9]{8,10})-[bcdfghjklmnpqrstvwxz2-9]{5}\b`), "$1-<pod>"},
		// And Job pods' (the suite's hooks are NAME-migrate and NAME-test).
		{regexp.MustCompile(`(-migrate|-test)-[bcdfghjklmnpqrstvwxz2-9]{5}\b`), "$1-<pod>"},
	}
}

func maskVolatile(text string) string {
	for _, v := range volatile() {
		text = v.re.ReplaceAllString(text, v.with)
	}
	return sortListings(sortResources(text))
}

// resources is the RESOURCES section of Helm's release status: groups, each a
// "==> KIND" heading, a table and an empty line.
var resources = regexp.MustCompile(`(?m)^RESOURCES:\n((?:==> .*\n(?:.+\n)*\n)+)`)

var resourceGroup = regexp.MustCompile(`(?m)==> .*\n(?:.+\n)*\n`)

// sortResources puts the groups of each RESOURCES section in one order: Helm
// v4.3.1 itself lists them in another order from run to run.
func sortResources(text string) string {
	return resources.ReplaceAllStringFunc(text, func(section string) string {
		groups := resourceGroup.FindAllString(section, -1)
		sort.Strings(groups)
		return "RESOURCES:\n" + strings.Join(groups, "")
	})
}

// sortListings puts what helmfile does for several releases side by side, in
// no set order, in one order: its look-ups of releases ("Listing releases
// matching ^NAME$", then the row Helm found, if any) and the values files it
// writes.
func sortListings(text string) string {
	lines := strings.SplitAfter(text, "\n")
	var out, run []string
	flush := func() {
		sort.Strings(run)
		out, run = append(out, run...), nil
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "Listing releases matching ^"):
			name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "Listing releases matching ^"), "$")
			group := line
			for i++; i < len(lines) && (strings.HasPrefix(lines[i], name+" ") || strings.HasPrefix(lines[i], name+"\t")); i++ {
				group += lines[i]
			}
			run = append(run, group)
		case strings.HasPrefix(line, "Writing values file "):
			run = append(run, line)
			i++
		default:
			flush()
			out = append(out, line)
			i++
		}
	}
	flush()
	return strings.Join(out, "")
}

func TestMaskVolatile(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"go time in a table": {
			"web\tns\t1\t2026-12-04 23:28:39.12345 +0000 UTC   \tdeployed\n",
			"web\tns\t1\t<time>\tdeployed\n",
		},
		"rfc3339":                    {"generated: \"2026-12-04T23:28:39.123456789Z\"", "generated: \"<time>\""},
		"ansic":                      {"LAST DEPLOYED: Fri Dec  4 23:28:39 2026\n", "LAST DEPLOYED: <time>\n"},
		"duration":                   {"web\tns\t0.1.0\t1m2.5s\n", "web\tns\t0.1.0\t<duration>\n"},
		"uid":                        {"controller-uid: 0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "controller-uid: <uid>"},
		"ct release":                 {`Installing chart "probe-ab12cd34ef"`, `Installing chart "probe-<random>"`},
		"versions":                   {"v4.3.1 v1.36.3 0.1.0", "v4.3.1 v1.36.3 0.1.0"},
		"temporary":                  {"/tmp/helmfile1234567/cache", "/tmp/helmfile<random>/cache"},
		"short number":               {"replicas: 2", "replicas: 2"},
		"labels":                     {"LABELS: modifiedAt=1796428545,name=web", "LABELS: modifiedAt=<unix time>,name=web"},
		"pod":                        {"web-5f68559b79-7t74l   1/1", "web-5f68559b79-<pod>   1/1"},
		"headings":                   {"NAME\tREVISION\tUPDATED    \tSTATUS\nNAME   CLUSTER-IP     EXTERNAL-IP\n", "NAME\tREVISION\tUPDATED\tSTATUS\nNAME   CLUSTER-IP EXTERNAL-IP\n"},
		"status groups":              {"RESOURCES:\n==> v1/Service\nNAME\ns\n\n==> v1/ConfigMap\nNAME\nc\n\nNOTES:\n", "RESOURCES:\n==> v1/ConfigMap\nNAME\nc\n\n==> v1/Service\nNAME\ns\n\nNOTES:\n"},
		"listings":                   {"Listing releases matching ^ghost$\nListing releases matching ^extra$\nextra\tns\t1\nDeleting extra\n", "Listing releases matching ^extra$\nextra\tns\t1\nListing releases matching ^ghost$\nDeleting extra\n"},
		"listings, rows with spaces": {"Listing releases matching ^web$\nweb    ns   6\nListing releases matching ^backend$\nbackend   ns   5\nDeleting web\n", "Listing releases matching ^backend$\nbackend   ns   5\nListing releases matching ^web$\nweb    ns   6\nDeleting web\n"},
		"values files":               {"Writing values file b.yaml\nWriting values file a.yaml\n", "Writing values file a.yaml\nWriting values file b.yaml\n"},
		"kubectl table":              {"cache   10.96.208.12   <none>   6379/TCP   12s\n", "cache   <ip> <none>   6379/TCP   <duration>\n"},
	} {
		if got := maskVolatile(c.in); got != c.want {
			t.Errorf("%s: maskVolatile(%q) = %q, want %q", name, c.in, got, c.want)
		}
	}
}
