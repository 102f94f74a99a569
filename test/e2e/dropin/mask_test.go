package dropin

import (
	"regexp"
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
		// A masked cell's padding in a table depends on what it hid.
		{regexp.MustCompile(`(<time>|<duration>) +`), "$1 "},
	}
}

func maskVolatile(text string) string {
	for _, v := range volatile() {
		text = v.re.ReplaceAllString(text, v.with)
	}
	return text
}

func TestMaskVolatile(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"go time in a table": {
			"web\tns\t1\t2026-12-04 23:28:39.12345 +0000 UTC   \tdeployed\n",
			"web\tns\t1\t<time> \tdeployed\n",
		},
		"rfc3339":      {"generated: \"2026-12-04T23:28:39.123456789Z\"", "generated: \"<time>\""},
		"ansic":        {"LAST DEPLOYED: Fri Dec  4 23:28:39 2026\n", "LAST DEPLOYED: <time>\n"},
		"duration":     {"web\tns\t0.1.0\t1m2.5s\n", "web\tns\t0.1.0\t<duration>\n"},
		"uid":          {"controller-uid: 0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "controller-uid: <uid>"},
		"ct release":   {`Installing chart "probe-ab12cd34ef"`, `Installing chart "probe-<random>"`},
		"versions":     {"v4.3.1 v1.36.3 0.1.0", "v4.3.1 v1.36.3 0.1.0"},
		"temporary":    {"/tmp/helmfile1234567/cache", "/tmp/helmfile<random>/cache"},
		"short number": {"replicas: 2", "replicas: 2"},
	} {
		if got := maskVolatile(c.in); got != c.want {
			t.Errorf("%s: maskVolatile(%q) = %q, want %q", name, c.in, got, c.want)
		}
	}
}
