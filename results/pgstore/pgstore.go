// Package pgstore opens a results store on PostgreSQL (pgx), for teams that
// share one store: the same schema and code as SQLite (results/sqlstore),
// with migrations serialised by an advisory lock.
package pgstore

import (
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/kregress/kregress/results/dsn"
	"github.com/kregress/kregress/results/sqlstore"
)

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{
	Name: "PostgreSQL", Driver: "pgx", Dollar: true,
	ID: "BIGSERIAL PRIMARY KEY", Float: "DOUBLE PRECISION",
	Lock: "SELECT pg_advisory_xact_lock(727365)", RowLock: " FOR UPDATE",
}

// IsDSN reports whether s names a PostgreSQL store (a URL or libpq's
// keyword form).
func IsDSN(s string) bool { return dsn.IsPostgres(s) }

// Open connects to dsn and migrates the schema.
func Open(spec string) (*sqlstore.Store, error) {
	return sqlstore.Open(Dialect, spec, Redact(spec))
}

// OpenReadOnly connects without migrating, in a session whose
// transactions are all read-only (default_transaction_read_only, sent
// in the startup message): the server itself refuses any write.
func OpenReadOnly(spec string) (*sqlstore.Store, error) {
	ro, err := readOnlyDSN(spec)
	if err != nil {
		return nil, err
	}
	return sqlstore.OpenReadOnly(Dialect, ro, Redact(spec))
}

// readOnlyDSN adds default_transaction_read_only=on at the end of a URL's
// query or of a keyword string: textually, so the rest of the DSN reaches
// pgx exactly as given, and last, since the last occurrence of a key wins.
func readOnlyDSN(spec string) (string, error) {
	switch {
	case !strings.HasPrefix(spec, "postgres://") && !strings.HasPrefix(spec, "postgresql://"):
		return spec + " default_transaction_read_only=on", nil
	case strings.Contains(spec, "?"):
		return spec + "&default_transaction_read_only=on", nil
	default:
		return spec + "?default_transaction_read_only=on", nil
	}
}

// Redact drops the password from a DSN for messages.
func Redact(s string) string { return dsn.Redact(s) }
