package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/store/pgtest"
	"github.com/kregress/kregress/results/store/storetest"
)

func TestMain(m *testing.M) {
	// The suite's writer processes are this test binary: store.Open
	// opens whichever kind of store their spec names.
	storetest.WriterMain(store.Open)
	os.Exit(m.Run())
}

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, storetest.Kind{
		Open: store.OpenSQLite, OpenReadOnly: store.OpenSQLiteReadOnly,
		Fresh: func(t *testing.T) string { return filepath.Join(t.TempDir(), "kregress.db") },
	})
}

func TestPostgresConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server (run `make test`)")
	}
	srv := pgtest.Start(t)
	var n atomic.Int64
	storetest.Run(t, storetest.Kind{
		Open: store.OpenPostgres, OpenReadOnly: store.OpenPostgresReadOnly,
		Fresh: func(t *testing.T) string { return srv.CreateDB(t, fmt.Sprintf("kregress_suite_%d", n.Add(1))) },
	})
}
