//go:build e2e

package sqlstore

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// failCommits makes every commit that writes a release named doomed* fail,
// at commit time (a deferred constraint trigger).
var failCommits = []string{
	`CREATE FUNCTION fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF (TG_OP = 'DELETE' AND OLD.name LIKE 'doomed%') OR (TG_OP <> 'DELETE' AND NEW.name LIKE 'doomed%') THEN
			RAISE EXCEPTION 'injected commit failure';
		END IF;
		RETURN NULL;
	END $$`,
	`CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT OR UPDATE OR DELETE ON releases_v1
		DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_commit()`,
}

// A commit that fails (helm/helm#32394): our install fails with the
// database's error and deploys nothing, leaving nothing recorded. Helm v4.3.1
// drops the commit's error: it reports success, deploys, and records nothing;
// the test logs what Helm did without asserting it.
func TestFailedCommitFailsTheInstall(t *testing.T) {
	t.Parallel()
	url := db.Database(t)
	r := newRunner(t, helmPeer(t, "v4.3.1"), url)
	r.kc("list", "-A") // the tables
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range failCommits {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	ns := env.Namespace(t)
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool {
		_, err := client.CoreV1().ConfigMaps(ns).Get(ctx, name+"-config", metav1.GetOptions{})
		return err == nil
	}

	cmd := r.command(bin, "install", "doomed-ours", chartDir(), "-n", ns)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(string(out), "injected commit failure") {
		t.Errorf("our install: %v\n%s", err, out)
	}
	if exists("doomed-ours") {
		t.Error("our failed install deployed its objects")
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM releases_v1 WHERE name = 'doomed-ours'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows of the failed install (%v)", n, err)
	}

	helmOut, helmErr := r.command(r.helm, "install", "doomed-helm", chartDir(), "-n", ns).CombinedOutput()
	_ = c.QueryRow(ctx, `SELECT count(*) FROM releases_v1 WHERE name = 'doomed-helm'`).Scan(&n)
	t.Logf("Helm v4.3.1 on the same fault: exit error %v, objects deployed %v, %d rows recorded; output:\n%s", helmErr, exists("doomed-helm"), n, helmOut)
}
