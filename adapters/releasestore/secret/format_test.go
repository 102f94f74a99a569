package secret_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func TestObjectIsHelmsFormat(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	clock := &fixedClock{time.Unix(1700000000, 0)}
	s := secret.New(client, helmrecord.WithClock(clock))
	r := porttest.Release("prod", "web", 2, release.StatusPendingUpgrade)
	if err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	obj, err := client.CoreV1().Secrets("prod").Get(ctx, "sh.helm.release.v1.web.v2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Type != "helm.sh/release.v1" {
		t.Errorf("type = %q", obj.Type)
	}
	want := map[string]string{"owner": "helm", "name": "web", "status": "pending-upgrade", "version": "2", "createdAt": "1700000000", "team": "payments"}
	if !equalMaps(obj.Labels, want) {
		t.Errorf("labels = %v, want %v", obj.Labels, want)
	}
	if len(obj.Data) != 1 {
		t.Errorf("data keys = %v, want only release", obj.Data)
	}
	got, err := helmrecord.Decode(string(obj.Data["release"]))
	if err != nil {
		t.Fatal(err)
	}
	r.Labels = nil
	porttest.AssertSame(t, got, r)
	if !strings.Contains(obj.Annotations[helmrecord.AnnotationSummary], `"chart":"web-1.2.0"`) {
		t.Errorf("summary annotation = %q", obj.Annotations[helmrecord.AnnotationSummary])
	}

	clock.t = clock.t.Add(time.Hour)
	r.Info.Status = release.StatusDeployed
	if err := s.Update(ctx, r); err != nil {
		t.Fatal(err)
	}
	obj, _ = client.CoreV1().Secrets("prod").Get(ctx, "sh.helm.release.v1.web.v2", metav1.GetOptions{})
	// As Helm's: the revision written from memory carries no createdAt.
	want = map[string]string{"owner": "helm", "name": "web", "status": "deployed", "version": "2", "modifiedAt": "1700003600"}
	if !equalMaps(obj.Labels, want) {
		t.Errorf("labels after update = %v, want %v", obj.Labels, want)
	}

	// A revision read back from the store keeps the createdAt its object has
	// (one left pending, then marked failed).
	pending := porttest.Release("prod", "web", 3, release.StatusPendingUpgrade)
	if err := s.Create(ctx, pending); err != nil {
		t.Fatal(err)
	}
	h, err := s.History(ctx, "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	read := h.Latest()
	clock.t = clock.t.Add(time.Hour)
	read.Info.Status = release.StatusFailed
	if err := s.Update(ctx, read); err != nil {
		t.Fatal(err)
	}
	obj, _ = client.CoreV1().Secrets("prod").Get(ctx, "sh.helm.release.v1.web.v3", metav1.GetOptions{})
	want = map[string]string{"owner": "helm", "name": "web", "status": "failed", "version": "3", "createdAt": "1700003600", "modifiedAt": "1700007200", "team": "payments"}
	if !equalMaps(obj.Labels, want) {
		t.Errorf("labels after updating a revision read back = %v, want %v", obj.Labels, want)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func helmSecret(ns, name string, rev int, data string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: helmrecord.ObjectName(name, rev),
			Labels: map[string]string{"owner": "helm", "name": name, "status": "deployed", "version": itoa(rev)},
		},
		Type: "helm.sh/release.v1",
		Data: map[string][]byte{"release": []byte(data)},
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestCorruptRecordsAreReportedNotFatal(t *testing.T) {
	ctx := context.Background()
	good := porttest.Release("prod", "good", 1, release.StatusDeployed)
	good.Labels = nil
	text, err := helmrecord.Encode(good)
	if err != nil {
		t.Fatal(err)
	}
	noSummary := helmSecret("prod", "good", 1, text) // as Helm writes it: no annotations
	client := fake.NewClientset(
		noSummary,
		helmSecret("prod", "b64", 1, "not base64!"),
		helmSecret("prod", "gzip", 1, base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0, 1, 2})),
		helmSecret("prod", "json", 1, base64.StdEncoding.EncodeToString([]byte(`{"name": [`))),
	)
	s := secret.New(client, helmrecord.WithChunkSize(1024))
	big := porttest.Release("prod", "chunked", 1, release.StatusDeployed)
	big.Chart.Files = append(big.Chart.Files, &chart.File{Name: "x", Data: randomBytes(8 << 10)})
	if err := s.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	// Lose one chunk, and list without the summary so the payload must be read.
	chunks, err := client.CoreV1().Secrets("prod").List(ctx, metav1.ListOptions{LabelSelector: helmrecord.LabelChunkOf + "=chunked"})
	if err != nil || len(chunks.Items) < 2 {
		t.Fatalf("chunks: %d, %v", len(chunks.Items), err)
	}
	lost := chunks.Items[1].Name
	if err := client.CoreV1().Secrets("prod").Delete(ctx, lost, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	head, _ := client.CoreV1().Secrets("prod").Get(ctx, "sh.helm.release.v1.chunked.v1", metav1.GetOptions{})
	delete(head.Annotations, helmrecord.AnnotationSummary)
	if _, err := client.CoreV1().Secrets("prod").Update(ctx, head, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	res, err := s.List(ctx, ports.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 1 || res.Releases[0].Name != "good" || res.Releases[0].Chart != "web-1.1.0" {
		t.Errorf("releases = %+v, want only good", res.Releases)
	}
	wantProblems := map[string]string{
		"secret prod/sh.helm.release.v1.b64.v1":  "base64",
		"secret prod/sh.helm.release.v1.gzip.v1": "decompress",
		"secret prod/sh.helm.release.v1.json.v1": "JSON",
		"secret prod/" + lost:                    "missing",
	}
	if len(res.Problems) != len(wantProblems) {
		t.Errorf("problems = %v", res.Problems)
	}
	for _, p := range res.Problems {
		if w, ok := wantProblems[p.Object]; !ok || !strings.Contains(p.Error(), w) {
			t.Errorf("problem %v, want one of %v", p, wantProblems)
		}
	}
	_, err = s.Get(ctx, "prod", "json", 1)
	var re ports.RecordError
	if !errors.As(err, &re) || re.Object != "secret prod/sh.helm.release.v1.json.v1" {
		t.Errorf("Get of a corrupt record = %v, want a RecordError naming it", err)
	}
	// A corrupt revision can still be deleted, with its chunks.
	if _, err := s.Delete(ctx, "prod", "chunked", 1); err == nil {
		t.Error("Delete of a revision with a missing chunk reported no problem")
	}
	left, _ := client.CoreV1().Secrets("prod").List(ctx, metav1.ListOptions{LabelSelector: helmrecord.LabelChunkOf})
	if len(left.Items) != 0 {
		t.Errorf("%d chunks left after Delete", len(left.Items))
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func TestUpdatesLeaveNoStaleChunks(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	s := secret.New(client, helmrecord.WithChunkSize(1024))
	chunks := func() []string {
		t.Helper()
		list, err := client.CoreV1().Secrets("prod").List(ctx, metav1.ListOptions{LabelSelector: helmrecord.LabelChunkOf})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range list.Items {
			if c.Type != secret.ChunkType || c.Labels["owner"] != "" {
				t.Errorf("chunk %s: type %q, labels %v", c.Name, c.Type, c.Labels)
			}
			names = append(names, c.Name)
		}
		return names
	}
	big := porttest.Release("prod", "web", 1, release.StatusPendingInstall)
	big.Chart.Files = append(big.Chart.Files, &chart.File{Name: "x", Data: randomBytes(6 << 10)})
	if err := s.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	first := chunks()
	if len(first) < 5 {
		t.Fatalf("chunks = %v, want the record split", first)
	}
	big.Info.Status = release.StatusDeployed
	if err := s.Update(ctx, big); err != nil {
		t.Fatal(err)
	}
	second := chunks()
	if len(second) != len(first) || second[0] == first[0] {
		t.Errorf("after a large update: chunks %v, before %v; want a new set of the same size", second, first)
	}
	if err := s.Update(ctx, porttest.Release("prod", "web", 1, release.StatusDeployed)); err != nil {
		t.Fatal(err)
	}
	if left := chunks(); len(left) != 0 {
		t.Errorf("after shrinking: chunks %v left", left)
	}
	head, err := client.CoreV1().Secrets("prod").Get(ctx, "sh.helm.release.v1.web.v1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{helmrecord.AnnotationChunks, helmrecord.AnnotationChunkSet, helmrecord.AnnotationDigest} {
		if _, ok := head.Annotations[a]; ok {
			t.Errorf("small record keeps annotation %s", a)
		}
	}

	// A chunk changed behind our back fails the digest, naming the head object.
	if err := s.Update(ctx, big); err != nil {
		t.Fatal(err)
	}
	name := chunks()[0]
	c, err := client.CoreV1().Secrets("prod").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Data["chunk"][0] ^= 1
	if _, err := client.CoreV1().Secrets("prod").Update(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, "prod", "web", 1)
	if err == nil || !strings.Contains(err.Error(), "digest") || !strings.Contains(err.Error(), "secret prod/sh.helm.release.v1.web.v1") {
		t.Errorf("Get of a tampered chunk = %v", err)
	}
}

func TestListFromLabelsDecodesNoHelmRecord(t *testing.T) {
	ctx := context.Background()
	ours := porttest.Release("prod", "ours", 2, release.StatusDeployed)
	client := fake.NewClientset(
		helmSecret("prod", "web", 1, "not even base64"),
		helmSecret("prod", "web", 2, "not even base64"),
	)
	s := secret.New(client)
	if err := s.Create(ctx, ours); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	res, err := s.List(ctx, ports.ListQuery{LatestOnly: true, LabelsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems = %v, want none: no record is decoded", res.Problems)
	}
	want := []release.Summary{
		{Name: "ours", Namespace: "prod", Revision: 2, Status: release.StatusDeployed, Chart: "web-1.2.0"},
		{Name: "web", Namespace: "prod", Revision: 2, Status: release.StatusDeployed, Partial: true},
	}
	if len(res.Releases) != len(want) {
		t.Fatalf("releases = %+v, want %d", res.Releases, len(want))
	}
	for i, w := range want {
		g := res.Releases[i]
		if g.Name != w.Name || g.Revision != w.Revision || g.Status != w.Status || g.Partial != w.Partial || g.Chart != w.Chart {
			t.Errorf("release %d = %+v, want %+v", i, g, w)
		}
	}
	for _, a := range client.Actions() {
		if a.GetVerb() != "list" {
			t.Errorf("listing from labels did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}
