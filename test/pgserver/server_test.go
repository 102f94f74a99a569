package pgserver

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

var shared *Shared

func TestMain(m *testing.M) { os.Exit(Main(m, &shared)) }

func TestServerAnswersAndSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	url := shared.Database(t)
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	_ = c.Close(ctx)
	if err := shared.Need(t).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	c, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var v int
	if err := c.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != 42 {
		t.Fatalf("after restart: %d, %v", v, err)
	}
}

func TestPasswordIsRequiredOverTCP(t *testing.T) {
	srv := shared.Need(t)
	cfg, err := pgx.ParseConfig(srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = "wrong"
	if c, err := pgx.ConnectConfig(context.Background(), cfg); err == nil {
		_ = c.Close(context.Background())
		t.Fatal("a wrong password connected")
	}
}
