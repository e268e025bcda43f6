package pgstore

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results/pgstore/pgtest"
	"github.com/kregress/kregress/results/sqlstore"
	"github.com/kregress/kregress/results/sqlstore/storetest"
)

func open(spec string) (*sqlstore.Store, error) { return Open(spec) }

func TestMain(m *testing.M) {
	storetest.WriterMain(open)
	os.Exit(m.Run())
}

func TestStoreOnRealPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server (run `make test`)")
	}
	srv := pgtest.Start(t)
	storetest.Run(t, open, srv.CreateDB(t, "kregress_suite"))
	storetest.RunReadOnly(t, open, OpenReadOnly, srv.CreateDB(t, "kregress_readonly"))
}

func TestDSNThatCannotConnect(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there
	dsn := fmt.Sprintf("postgres://kregress:secret@127.0.0.1:%d/kregress?sslmode=disable&connect_timeout=3", port)
	start := time.Now()
	_, err := Open(dsn)
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
