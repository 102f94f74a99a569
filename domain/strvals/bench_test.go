package strvals

import "testing"

func BenchmarkParseInto(b *testing.B) {
	const line = "image.repository=nginx,image.tag=1.25.3,replicaCount=3,ingress.enabled=true," +
		"ingress.hosts[0].host=example.com,ingress.hosts[0].paths={/,/api},resources.limits.cpu=500m," +
		`podAnnotations.prometheus\.io/scrape=true,tolerations[1].key=dedicated`
	b.ReportAllocs()
	for b.Loop() {
		if err := ParseInto(line, map[string]any{}); err != nil {
			b.Fatal(err)
		}
	}
}
