package runner

import (
	"regexp"
	"sort"
	"strings"
)

// volatile are the parts of a release command's output that differ from run
// to run, whoever runs it: each becomes its placeholder.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uid>"},
	// RFC 3339 and Go's time.String().
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[ ]?[+-]\d{2}:?\d{2}( [A-Z]{2,5})?)?`), "<time>"},
	// time.ANSIC: LAST DEPLOYED, a test's Last Started.
	{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}`), "<time>"},
	// Ages in status's resource tables.
	{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "<duration>"},
	// Names --generate-name makes: the chart's directory and the time in seconds.
	{regexp.MustCompile(`\b(chart2?)-\d{10}\b`), "$1-<generated>"},
	// klog's header of a line client-go logs (an API server's warning): its time and process.
	{regexp.MustCompile(`(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ `), "$1<klog> "},
	// Release records' labels: seconds since 1970.
	{regexp.MustCompile(`\b(createdAt|modifiedAt)=\d+`), "$1=<unix time>"},
	{regexp.MustCompile(`"(createdAt|modifiedAt)":"\d+"`), `"$1":"<unix time>"`},
	{regexp.MustCompile(`\b(createdAt|modifiedAt): "\d+"`), `$1: "<unix time>"`},
	// Service and pod addresses the cluster chose.
	{regexp.MustCompile(`\b10\.(96|244)\.\d+\.\d+\b`), "<ip>"},
	// Live objects' versions (status -o json's resources) and the token
	// volumes the API server names at random.
	{regexp.MustCompile(`"resourceVersion":"\d+"`), `"resourceVersion":"<version>"`},
	{regexp.MustCompile(`\bresourceVersion: "\d+"`), `resourceVersion: "<version>"`},
	{regexp.MustCompile(`\bkube-api-access-[bcdfghjklmnpqrstvwxz2-9]{5}\b`), "kube-api-access-<random>"},
	// A masked cell's padding in a table depends on what it hid, and so does
	// its column heading's.
	{regexp.MustCompile(`(<time>|<duration>|<ip>|<generated>) *\t`), "$1\t"},
	{regexp.MustCompile(`(<time>|<duration>|<ip>|<generated>) +`), "$1 "},
	{regexp.MustCompile(`\b(UPDATED|CLUSTER-IP|AGE) *\t`), "$1\t"},
	{regexp.MustCompile(`\b(UPDATED|CLUSTER-IP|AGE) +`), "$1 "},
	// Pods' generated suffixes (after their ReplicaSet's hash) and Job pods'.
	{regexp.MustCompile(`(-[bcdfghjklmnpqrstvwxz2-9]{8,10})-[bcdfghjklmnpqrstvwxz2-9]{5}\b`), "$1-<pod>"},
	{regexp.MustCompile(`(-post|-test)-[bcdfghjklmnpqrstvwxz2-9]{5}\b`), "$1-<pod>"},
}

func maskVolatile(text string) string {
	for _, v := range volatile {
		text = v.re.ReplaceAllString(text, v.with)
	}
	return sortResources(dropCanceledStreamLogs(text))
}

// canceledStreamLog is a line client-go logs when the process cancels a
// request or watch whose response it is still reading: Helm's does now and
// then as its command ends, depending on timing alone.
var canceledStreamLog = regexp.MustCompile(`(?m)^[IWE]<klog> (request|reflector)\.go:\d+\] .*context canceled.*\n`)

// dropCanceledStreamLogs leaves those lines out (the rule
// client-go-canceled-streams, README's intended differences).
func dropCanceledStreamLogs(text string) string {
	return canceledStreamLog.ReplaceAllString(text, "")
}

// resources is the RESOURCES section of Helm's release status: groups, each a
// "==> KIND" heading, a table and an empty line.
var (
	resources     = regexp.MustCompile(`(?m)^RESOURCES:\n((?:==> .*\n(?:.+\n)*\n)+)`)
	resourceGroup = regexp.MustCompile(`(?m)==> .*\n(?:.+\n)*\n`)
)

// sortResources puts the groups of each RESOURCES section in one order (the
// rule status-resource-order): Helm v4.3.1 lists them in another order from
// run to run.
func sortResources(text string) string {
	return resources.ReplaceAllStringFunc(text, func(section string) string {
		groups := resourceGroup.FindAllString(section, -1)
		sort.Strings(groups)
		return "RESOURCES:\n" + strings.Join(groups, "")
	})
}

// managedFieldsJSON is the live objects' managedFields in what
// `status --show-resources -o json` prints (their entries hold no arrays).
var managedFieldsJSON = regexp.MustCompile(`"managedFields":\[(?:[^\[\]]|\[[^\[\]]*\])*\],`)

// dropManagedFields leaves out the live objects' managedFields a release
// command prints (-o json or -o yaml), by the rule helm3-server-side-apply
// (README, "Installed as helm"): in the Helm 3 dialect we apply server-side
// where Helm 3 patches client-side, so they say Apply where Helm 3's say Update.
func dropManagedFields(text string) string {
	text = managedFieldsJSON.ReplaceAllString(text, "")
	lines := strings.SplitAfter(text, "\n")
	var out strings.Builder
	skip := ""
	for _, l := range lines {
		if skip != "" && (strings.HasPrefix(l, skip+" ") || strings.HasPrefix(l, skip+"-")) {
			continue
		}
		skip = ""
		if key := strings.TrimLeft(l, " "); key == "managedFields:\n" {
			skip = l[:len(l)-len(key)]
			continue
		}
		out.WriteString(l)
	}
	return out.String()
}
