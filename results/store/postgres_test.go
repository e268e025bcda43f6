package store

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results/store/pgtest"
)

// Migration 7 on PostgreSQL: the duplicate cells an older kregress
// stored are resolved as on SQLite (
// TestMigrationResolvesDuplicateCells), nothing deleted.
func TestPostgresMigrationResolvesDuplicateCells(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server (run `make test`)")
	}
	srv := pgtest.Start(t)
	spec := srv.CreateDB(t, "kregress_dup")
	old, err := openAt(postgres, spec, Redact(spec), 6)
	if err != nil {
		t.Fatal(err)
	}
	db := old.DB()
	var runID int64
	if err := db.QueryRow(`INSERT INTO runs (experiment, family, baseline, variants, started_at, status, config, host) VALUES ('e', 'f', 'a', 'a', '', 'complete', 'x: 1', '{}') RETURNING id`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	for _, row := range []struct {
		seq    int
		status string
	}{{1, "ok"}, {1, "ok"}, {2, "infra_error"}, {2, "crashed"}, {2, "incomplete"}, {3, "incomplete"}, {3, "infra_error"}, {0, "ok"}, {0, "ok"}} {
		if _, err := db.Exec(`INSERT INTO results (run_id, variant, repetition, seq, status, started_at, finished_at, provenance) VALUES ($1, 'a', 1, $2, $3, '', '', '{}')`, runID, row.seq, row.status); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	s, err := OpenPostgres(spec)
	if err != nil {
		t.Fatalf("migrating a store with duplicate cells: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	rs, err := s.Results(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%d:%d:%s", r.Seq, r.ID, r.Status))
	}
	if want := "0:8:ok 0:9:ok 1:1:ok 2:4:crashed 3:7:infra_error"; strings.Join(got, " ") != want {
		t.Fatalf("current after migration: %s\nwant %s", strings.Join(got, " "), want)
	}
	if hist, _ := s.History(ctx, runID); len(hist) != 4 {
		t.Fatalf("history after migration: %d rows, want 4", len(hist))
	}
}

func TestPostgresDSNThatCannotConnect(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there
	dsn := fmt.Sprintf("postgres://kregress:secret@127.0.0.1:%d/kregress?sslmode=disable&connect_timeout=3", port)
	start := time.Now()
	_, err := OpenPostgres(dsn)
	if err == nil {
		t.Fatal("connected to nothing")
	}
	msg := err.Error()
	if !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(msg, "cannot connect") {
		t.Fatalf("error does not say where it tried: %v", err)
	}
	if strings.Contains(msg, "secret") {
		t.Fatalf("error leaks the password: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("took too long to give up")
	}
}
