package store

// A results store on PostgreSQL (pgx), for teams that share one store:
// the same schema and code as SQLite (sql.go), with migrations serialised
// by an advisory lock.

import (
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// postgres is PostgreSQL's dialect.
var postgres = dialect{
	Name: "PostgreSQL", Driver: "pgx", Dollar: true,
	ID: "BIGSERIAL PRIMARY KEY", Float: "DOUBLE PRECISION",
	Lock: "SELECT pg_advisory_xact_lock(727365)", RowLock: " FOR UPDATE",
}

// OpenPostgres connects to the DSN spec and migrates the schema.
func OpenPostgres(spec string) (*Store, error) {
	return openDialect(postgres, spec, Redact(spec))
}

// OpenPostgresReadOnly connects without migrating, in a session whose
// transactions are all read-only (default_transaction_read_only, sent
// in the startup message): the server itself refuses any write.
func OpenPostgresReadOnly(spec string) (*Store, error) {
	ro, err := postgresReadOnlyDSN(spec)
	if err != nil {
		return nil, err
	}
	return openDialectReadOnly(postgres, ro, Redact(spec))
}

// postgresReadOnlyDSN adds default_transaction_read_only=on at the end of a URL's
// query or of a keyword string: textually, so the rest of the DSN reaches
// pgx exactly as given, and last, since the last occurrence of a key wins.
func postgresReadOnlyDSN(spec string) (string, error) {
	switch {
	case !strings.HasPrefix(spec, "postgres://") && !strings.HasPrefix(spec, "postgresql://"):
		return spec + " default_transaction_read_only=on", nil
	case strings.Contains(spec, "?"):
		return spec + "&default_transaction_read_only=on", nil
	default:
		return spec + "?default_transaction_read_only=on", nil
	}
}
