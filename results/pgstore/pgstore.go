// Package pgstore opens a results store on PostgreSQL (pgx), for teams that
// share one store: the same schema and code as SQLite (results/sqlstore),
// with migrations serialised by an advisory lock.
package pgstore

import (
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/kregress/kregress/results/dsn"
	"github.com/kregress/kregress/results/sqlstore"
)

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{
	Name: "PostgreSQL", Driver: "pgx", Dollar: true,
	ID: "BIGSERIAL PRIMARY KEY", Float: "DOUBLE PRECISION",
	Lock: "SELECT pg_advisory_xact_lock(727365)",
}

// IsDSN reports whether s names a PostgreSQL store (a URL or libpq's
// keyword form).
func IsDSN(s string) bool { return dsn.IsPostgres(s) }

// Open connects to dsn and migrates the schema.
func Open(spec string) (*sqlstore.Store, error) {
	return sqlstore.Open(Dialect, spec, Redact(spec))
}

// Redact drops the password from a DSN for messages.
func Redact(s string) string { return dsn.Redact(s) }
