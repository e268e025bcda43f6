// Package pgstore opens a results store on PostgreSQL (pgx), for teams that
// share one store: the same schema and code as SQLite (results/sqlstore),
// with migrations serialised by an advisory lock.
package pgstore

import (
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/kregress/kregress/results/sqlstore"
)

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{
	Name: "PostgreSQL", Driver: "pgx", Dollar: true,
	ID: "BIGSERIAL PRIMARY KEY", Float: "DOUBLE PRECISION",
	Lock: "SELECT pg_advisory_xact_lock(727365)",
}

// IsDSN reports whether s names a PostgreSQL store.
func IsDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to dsn and migrates the schema.
func Open(dsn string) (*sqlstore.Store, error) {
	return sqlstore.Open(Dialect, dsn, Redact(dsn))
}

// Redact drops the password from a DSN for messages.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable PostgreSQL DSN)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxx")
		}
	}
	return u.String()
}
