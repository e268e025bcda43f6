// Package stores opens a results store from its name: a PostgreSQL DSN
// (postgres://...) or the path of a SQLite file.
package stores

import (
	"fmt"

	"github.com/kregress/kregress/results/dsn"
	"github.com/kregress/kregress/results/pgstore"
	"github.com/kregress/kregress/results/sqlitestore"
	"github.com/kregress/kregress/results/sqlstore"
)

// Open opens the store named by spec for reading and writing (creating
// and migrating it if needed).
func Open(spec string) (*sqlstore.Store, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return nil, err
	}
	if pgstore.IsDSN(spec) {
		return pgstore.Open(spec)
	}
	return sqlitestore.Open(spec)
}

// OpenReadOnly opens an existing store for reading only: no migration,
// no stale-run marking, nothing written (see sqlitestore.OpenReadOnly
// and pgstore.OpenReadOnly).
func OpenReadOnly(spec string) (*sqlstore.Store, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return nil, err
	}
	if pgstore.IsDSN(spec) {
		return pgstore.OpenReadOnly(spec)
	}
	return sqlitestore.OpenReadOnly(spec)
}

// Normalize is dsn.Normalize, and refuses a DSN whose password is
// kregress's redaction marker: it was copied from a stored or printed
// configuration, and connecting with it would fail at best.
func Normalize(spec string) (string, error) {
	spec, err := dsn.Normalize(spec)
	if err != nil {
		return "", err
	}
	if dsn.IsPostgres(spec) && dsn.HasRedactedPassword(spec) {
		return "", fmt.Errorf("results store %s: its password is %q, what kregress writes in place of a password when it stores or prints a configuration: supply the real one (in the DSN via --store or KREGRESS_STORE, or leave it out of the DSN and set PGPASSWORD or ~/.pgpass)", dsn.Redact(spec), dsn.Redacted)
	}
	return spec, nil
}
