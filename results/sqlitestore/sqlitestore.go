// Package sqlitestore opens the default results store: one SQLite file
// (modernc.org/sqlite, pure Go) in WAL mode with a busy timeout, so two
// kregress processes can write into it at once.
package sqlitestore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"github.com/kregress/kregress/results/sqlstore"
)

// Dialect is SQLite's.
var Dialect = sqlstore.Dialect{Name: "SQLite", Driver: "sqlite", ID: "INTEGER PRIMARY KEY AUTOINCREMENT", Float: "REAL"}

// Open opens (creating if needed) the store at path and migrates it. A file
// that exists but is not SQLite is refused before anything writes to it.
func Open(path string) (*sqlstore.Store, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	// Switching a new file to WAL needs an exclusive lock and does not
	// wait on the busy timeout: when two kregress processes create the
	// store at the same moment, one is told "database is locked". Retry.
	var err error
	for attempt := 0; attempt < 40; attempt++ {
		var s *sqlstore.Store
		if s, err = sqlstore.Open(Dialect, dsn, path); err == nil {
			return s, nil
		}
		if !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "database is locked") {
			return nil, err
		}
		time.Sleep(time.Duration(50+attempt*10) * time.Millisecond)
	}
	return nil, err
}

// checkHeader refuses a non-empty file without SQLite's magic header:
// opening it would make SQLite report "file is not a database" at best,
// and a WAL/journal file might be created next to someone else's file.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results store %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	if n == 0 {
		return nil
	}
	if n < 16 || !bytes.Equal(head, []byte("SQLite format 3\x00")) {
		return fmt.Errorf("results store %s: not a SQLite database (the file was left untouched; point results_dir or store elsewhere)", path)
	}
	return nil
}
