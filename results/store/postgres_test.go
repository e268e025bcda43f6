package store

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results/store/pgtest"
)

// Migration 7 on PostgreSQL: the duplicate cells an older kregress
// stored are resolved as on SQLite (migrateDuplicateCells), nothing
// deleted.
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
	migrateDuplicateCells(t, old, func() (*Store, error) { return OpenPostgres(spec) })
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
