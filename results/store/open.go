package store

// Opening a results store from its name: a PostgreSQL DSN (postgres://...)
// or the path of a SQLite file.

import "fmt"

// Open opens the store named by spec for reading and writing (creating
// and migrating it if needed).
func Open(spec string) (*Store, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return nil, err
	}
	if IsPostgres(spec) {
		return OpenPostgres(spec)
	}
	return OpenSQLite(spec)
}

// OpenReadOnly opens an existing store for reading only: no migration,
// no stale-run marking, nothing written (see OpenSQLiteReadOnly
// and OpenPostgresReadOnly).
func OpenReadOnly(spec string) (*Store, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return nil, err
	}
	if IsPostgres(spec) {
		return OpenPostgresReadOnly(spec)
	}
	return OpenSQLiteReadOnly(spec)
}

// Normalize is normalizeScheme, and refuses a DSN whose password is
// kregress's redaction marker: it was copied from a stored or printed
// configuration, and connecting with it would fail at best.
func Normalize(spec string) (string, error) {
	spec, err := normalizeScheme(spec)
	if err != nil {
		return "", err
	}
	if IsPostgres(spec) {
		if err := checkKeywordCase(spec); err != nil {
			return "", err
		}
	}
	if IsPostgres(spec) && HasRedactedPassword(spec) {
		return "", fmt.Errorf("results store %s: its password is %q, what kregress writes in place of a password when it stores or prints a configuration: supply the real one (in the DSN via --store or KREGRESS_STORE, or leave it out of the DSN and set PGPASSWORD or ~/.pgpass)", Redact(spec), Redacted)
	}
	return spec, nil
}
