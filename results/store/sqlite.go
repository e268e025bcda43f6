package store

// The default results store: one SQLite file (modernc.org/sqlite, pure
// Go) in WAL mode with a busy timeout, so two kregress processes can
// write into it at once.

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/usage"
	_ "modernc.org/sqlite"
)

// sqlite is SQLite's dialect.
var sqlite = dialect{Name: "SQLite", Driver: "sqlite", ID: "INTEGER PRIMARY KEY AUTOINCREMENT", Float: "REAL"}

// OpenSQLite opens (creating if needed) the store at path and migrates it. A file
// that exists but is not SQLite, or is a SQLite database of someone else's
// (tables, but not kregress's), is refused before anything writes to it.
func OpenSQLite(path string) (*Store, error) {
	where := Redact(path)
	if err := checkHeader(path, where); err != nil {
		return nil, err
	}
	if err := checkForeign(path, where); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, err)
	}
	if err := canWrite(path); err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, err)
	}
	uri, err := fileURI(path)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, err)
	}
	spec := uri + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	// Switching a new file to WAL needs an exclusive lock and does not
	// wait on the busy timeout: when two kregress processes create the
	// store at the same moment, one is told "database is locked". Retry.
	for attempt := 0; attempt < 40; attempt++ {
		var s *Store
		if s, err = openDialect(sqlite, spec, where); err == nil {
			if err := checkIntact(s.DB(), where); err != nil {
				s.Close()
				return nil, err
			}
			return s, nil
		}
		if !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "database is locked") {
			return nil, err
		}
		time.Sleep(time.Duration(50+attempt*10) * time.Millisecond)
	}
	return nil, err
}

// canWrite is nil when this process can write the store file at path,
// creating it when absent (and removing what it created: SQLite creates
// it again): the host's own refusal, naming the path ("open
// /srv/ro/kregress.db: permission denied"), where SQLite would say only
// "unable to open database file (14)".
func canWrite(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path)
}

// OpenSQLiteReadOnly opens an existing store for reading only: nothing is
// migrated, no stale run is marked, and no file is created or written,
// so a store on a read-only mount, in a 0555 directory or in a 0444
// file, or someone else's, can be listed, shown, diffed and exported.
//
// SQLite in WAL mode creates the -wal and -shm files even for a mode=ro
// connection, and cannot remove them afterwards. So: when no -wal file
// exists, no connection has the database open in WAL mode and the main
// file holds every committed transaction; it is opened immutable
// (SQLite reads it without locks or side files). When a -wal exists
// (a kregress is writing, or one died), it is opened mode=ro, which
// reads through the existing -wal and -shm. The one window left: a
// writer that opens the store while an immutable read is in progress
// and checkpoints within it could show the reader a torn page; the
// reader then fails or lists stale data, and the store is unharmed.
func OpenSQLiteReadOnly(path string) (*Store, error) {
	where := Redact(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("results store %s: is a directory (give the store's file, e.g. %s)", where, filepath.Join(where, "kregress.db"))
	}
	if err := checkHeader(path, where); err != nil {
		return nil, err
	}
	spec, err := sqliteReadOnlyDSN(path)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, err)
	}
	s, err := openDialectReadOnly(sqlite, spec+"&_pragma=busy_timeout(20000)", where)
	if err != nil {
		return nil, err
	}
	if err := checkIntact(s.DB(), where); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkIntact refuses a store whose pages are damaged, before any command
// reads it: otherwise a list or an import over a damaged page may read
// around it and exit 0. quick_check rather than integrity_check: it reads
// every page once (time linear in the store) and finds damaged pages and
// records, leaving out only the cross-checks of indexes against their
// tables, which cost integrity_check a sort per index on a big store.
// The first problem it reports is quoted.
func checkIntact(db *sql.DB, where string) error {
	var first string
	if err := db.QueryRow(`PRAGMA quick_check(1)`).Scan(&first); err != nil {
		return fmt.Errorf("results store %s: cannot check it (the file was left untouched): %w", where, err)
	}
	if first != "ok" {
		return fmt.Errorf("results store %s is damaged: SQLite's quick_check says %q (the file was left untouched; restore it from a backup, or recover it with sqlite3's .recover)", where, first)
	}
	return nil
}

// sqliteReadOnlyDSN is the modernc DSN that reads path without writing (see
// OpenSQLiteReadOnly).
func sqliteReadOnlyDSN(path string) (string, error) {
	uri, err := fileURI(path)
	if err != nil {
		return "", err
	}
	for _, side := range []string{"-wal", "-journal"} {
		if _, err := os.Lstat(path + side); err == nil {
			return uri + "?mode=ro", nil
		}
	}
	return uri + "?mode=ro&immutable=1", nil
}

// fileURI is path as a SQLite URI: absolute, with '?', '#' and '%'
// escaped, so that "a?b.db" opens the file a?b.db and not a with
// parameter b.db.
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return "file:" + (&url.URL{Path: abs}).EscapedPath(), nil
}

// checkHeader refuses a non-empty file without SQLite's magic header:
// opening it would make SQLite report "file is not a database" at best,
// and a WAL/journal file might be created next to someone else's file.
func checkHeader(path, where string) error {
	// A regular file only: open(2) of a FIFO without a writer would
	// wait for one for ever, and no device is a store.
	f, _, err := regularfile.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	var nr *regularfile.NotRegularError
	if errors.As(err, &nr) && nr.Mode.IsDir() {
		return usage.Errorf("results store %s: is a directory (give the store's file, e.g. %s)", where, filepath.Join(where, "kregress.db"))
	}
	if errors.As(err, &nr) {
		return usage.Errorf("results store %s: not a regular file (%s): give the path of a SQLite file or a postgres:// DSN", where, regularfile.Kind(nr.Mode))
	}
	if err != nil {
		return fmt.Errorf("results store %s: %w", where, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	if n == 0 {
		return nil
	}
	if n < 16 || !bytes.Equal(head, []byte("SQLite format 3\x00")) {
		return fmt.Errorf("results store %s: not a SQLite database (the file was left untouched; point results_dir or store elsewhere)", where)
	}
	return nil
}

// ErrForeign says a SQLite file holds tables but not kregress's.
var ErrForeign = errors.New("a SQLite database that is not a kregress store")

// checkForeign refuses a SQLite database that has tables but no
// kregress_schema: someone else's database, which Open would otherwise
// switch to WAL and fill with kregress's tables. It reads the file
// read-only (see sqliteReadOnlyDSN), so the refusal writes nothing either. An
// empty database (no tables) may become a store.
func checkForeign(path, where string) error {
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		return nil // absent or empty: Open creates the store
	}
	spec, err := sqliteReadOnlyDSN(path)
	if err != nil {
		return fmt.Errorf("results store %s: %w", where, err)
	}
	db, err := sql.Open("sqlite", spec+"&_pragma=busy_timeout(20000)")
	if err != nil {
		return fmt.Errorf("results store %s: %w", where, err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("results store %s: cannot read it as SQLite (the file was left untouched): %w", where, err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("results store %s: %w", where, err)
		}
		if name == "kregress_schema" {
			return nil
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("results store %s: cannot read it as SQLite (the file was left untouched): %w", where, err)
	}
	if len(tables) == 0 {
		return nil
	}
	shown := tables
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(tables)-5))
	}
	return fmt.Errorf("results store %s: %w (it has tables %s; the file was left untouched: point --store or results_dir elsewhere)", where, ErrForeign, strings.Join(shown, ", "))
}
