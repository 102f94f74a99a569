//go:build e2e

package sqlstore

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Secrets -> sql -> Secrets: Helm v4.3.1 makes a history in Secrets; we copy
// it to the database, where Helm (HELM_DRIVER=sql) reads the same history;
// the Secrets are deleted and we copy it back, where Helm reads it again.
func TestMigrateRoundTrip(t *testing.T) {
	t.Parallel()
	r := newRunner(t, helmPeer(t, "v4.3.1"), db.Database(t))
	secrets := &runner{t: t, helm: r.helm, url: r.url, env: append(append([]string{}, r.env...), "HELM_DRIVER=secret", "KUBECTL_CHART_STORAGE=secret")}
	ns := env.Namespace(t)
	chart := chartDir()
	secrets.helmRun("install", "web", chart, "-n", ns, "--labels", "team=payments")
	secrets.helmRun("upgrade", "web", chart, "-n", ns, "--set", "message=second")
	secrets.helmRun("install", "api", chart, "-n", ns, "--set", "message=api")
	original := secrets.helmRun("history", "web", "-n", ns, "-o", "json")

	out := r.kc("storage", "migrate", "--from", "secret", "--to", "sql", "-n", ns)
	if !strings.Contains(out, "2 releases, 3 revisions copied, 0 already there") {
		t.Errorf("migrate to sql said %q", out)
	}
	sameJSON(t, "Helm's history from the database", r.helmRun("history", "web", "-n", ns, "-o", "json"), original)
	compareHistories(t, r, ns, "web", 2)
	for _, rev := range [][]string{{"--revision", "1"}, {"--revision", "2"}, nil} {
		args := append([]string{"get", "metadata", "web", "-n", ns, "-o", "json"}, rev...)
		meta := r.helmRun(args...)
		sameJSON(t, "metadata "+strings.Join(rev, " "), r.kc(args...), meta)
		if !strings.Contains(meta, `"team":"payments"`) {
			t.Errorf("the user's label was not copied: %s", meta)
		}
	}
	if again := r.kc("storage", "migrate", "--from", "secret", "--to", "sql", "-n", ns); !strings.Contains(again, "0 revisions copied, 3 already there") {
		t.Errorf("second migrate said %q", again)
	}

	c, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Secrets(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "owner=helm"}); err != nil {
		t.Fatal(err)
	}
	r.kc("storage", "migrate", "--from", "sql", "--to", "secret", "-n", ns)
	sameJSON(t, "Helm's history from Secrets again", secrets.helmRun("history", "web", "-n", ns, "-o", "json"), original)
	compareHistories(t, secrets, ns, "web", 2)
	if got := secrets.helmRun("get", "values", "api", "-n", ns, "-o", "json"); !strings.Contains(got, `"api"`) {
		t.Errorf("api's values after the round trip: %s", got)
	}
}
