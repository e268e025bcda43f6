// Package sqlitestore is the default results store: one SQLite file
// (modernc.org/sqlite, pure Go) in WAL mode, with a versioned schema. Each
// result is written in its own transaction as soon as its cell ends, so an
// interrupted run keeps every cell that completed.
package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
)

// schemaVersion is the version this code writes; older files are migrated.
const schemaVersion = 1

var migrations = []string{
	// 1: initial schema
	`CREATE TABLE runs (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		experiment TEXT NOT NULL,
		family TEXT NOT NULL,
		baseline TEXT NOT NULL,
		variants TEXT NOT NULL,
		started_at TEXT NOT NULL,
		finished_at TEXT,
		status TEXT NOT NULL,
		error TEXT NOT NULL DEFAULT '',
		config TEXT NOT NULL,
		host TEXT NOT NULL
	);
	CREATE TABLE results (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		run_id INTEGER NOT NULL REFERENCES runs(id),
		variant TEXT NOT NULL,
		repetition INTEGER NOT NULL,
		seq INTEGER NOT NULL,
		status TEXT NOT NULL,
		error TEXT NOT NULL DEFAULT '',
		started_at TEXT NOT NULL,
		finished_at TEXT NOT NULL,
		provenance TEXT NOT NULL,
		document TEXT NOT NULL DEFAULT '',
		artifact_dir TEXT NOT NULL DEFAULT '',
		irqsoff_worst_us REAL NOT NULL DEFAULT 0,
		irqsoff_holder TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX results_run ON results(run_id);
	CREATE TABLE metrics (
		result_id INTEGER NOT NULL REFERENCES results(id),
		name TEXT NOT NULL,
		unit TEXT NOT NULL,
		direction TEXT NOT NULL,
		value REAL NOT NULL,
		PRIMARY KEY (result_id, name)
	);`,
}

// Store is a SQLite results store.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens (creating if needed) the store at path and migrates it.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate() error {
	if _, err := s.db.Exec(`CREATE TABLE IF NOT EXISTS kregress_schema (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("not a usable SQLite file: %w", err)
	}
	var v int
	err := s.db.QueryRow(`SELECT version FROM kregress_schema`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		v = 0
		if _, err := s.db.Exec(`INSERT INTO kregress_schema (version) VALUES (0)`); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if v > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this kregress understands (%d): upgrade kregress", v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		tx, err := s.db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.Exec(`UPDATE kregress_schema SET version = ?`, v+1); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTS(s sql.NullString) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s.String)
	return t
}

// CreateRun inserts r and sets its ID.
func (s *Store) CreateRun(ctx context.Context, r *results.Run) error {
	host, _ := json.Marshal(r.Host)
	res, err := s.db.ExecContext(ctx, `INSERT INTO runs (experiment, family, baseline, variants, started_at, status, config, host) VALUES (?,?,?,?,?,?,?,?)`,
		r.Experiment, r.Family, r.Baseline, strings.Join(r.Variants, ","), ts(r.StartedAt), r.Status, r.Config, string(host))
	if err != nil {
		return fmt.Errorf("store: create run: %w", err)
	}
	r.ID, err = res.LastInsertId()
	return err
}

// FinishRun sets a run's final status.
func (s *Store) FinishRun(ctx context.Context, id int64, status, errText string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?`, status, errText, ts(time.Now()), id)
	if err != nil {
		return fmt.Errorf("store: finish run %d: %w", id, err)
	}
	return nil
}

// AddResult inserts a result and its metrics in one transaction.
func (s *Store) AddResult(ctx context.Context, r *results.Result) error {
	prov, _ := json.Marshal(r.Provenance)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: add result: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO results (run_id, variant, repetition, seq, status, error, started_at, finished_at, provenance, document, artifact_dir, irqsoff_worst_us, irqsoff_holder) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.RunID, r.Variant, r.Repetition, r.Seq, r.Status, r.Error, ts(r.StartedAt), ts(r.FinishedAt), string(prov), string(r.Document), r.ArtifactDir, r.IrqsoffWorstUS, r.IrqsoffHolder)
	if err != nil {
		return fmt.Errorf("store: add result: %w", err)
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return err
	}
	for _, m := range r.Metrics {
		if _, err := tx.ExecContext(ctx, `INSERT INTO metrics (result_id, name, unit, direction, value) VALUES (?,?,?,?,?)`, r.ID, m.Name, m.Unit, string(m.Direction), m.Value); err != nil {
			return fmt.Errorf("store: add metric %s: %w", m.Name, err)
		}
	}
	return tx.Commit()
}

const runCols = `id, experiment, family, baseline, variants, started_at, finished_at, status, error, config, host`

func scanRun(sc interface{ Scan(...any) error }) (*results.Run, error) {
	var r results.Run
	var variants, host string
	var started, finished sql.NullString
	if err := sc.Scan(&r.ID, &r.Experiment, &r.Family, &r.Baseline, &variants, &started, &finished, &r.Status, &r.Error, &r.Config, &host); err != nil {
		return nil, err
	}
	if variants != "" {
		r.Variants = strings.Split(variants, ",")
	}
	r.StartedAt, r.FinishedAt = parseTS(started), parseTS(finished)
	json.Unmarshal([]byte(host), &r.Host)
	return &r, nil
}

// GetRun returns run id.
func (s *Store) GetRun(ctx context.Context, id int64) (*results.Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store %s: no run %d", s.path, id)
	}
	return r, err
}

// LatestRun returns the newest run (of experiment, if given).
func (s *Store) LatestRun(ctx context.Context, experiment string) (*results.Run, error) {
	q := `SELECT ` + runCols + ` FROM runs`
	args := []any{}
	if experiment != "" {
		q += ` WHERE experiment = ?`
		args = append(args, experiment)
	}
	r, err := scanRun(s.db.QueryRowContext(ctx, q+` ORDER BY id DESC LIMIT 1`, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store %s: no runs yet (start one with `kregress run`)", s.path)
	}
	return r, err
}

// ListRuns returns the newest runs first.
func (s *Store) ListRuns(ctx context.Context, limit int) ([]*results.Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM runs ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*results.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Results returns a run's results in execution order, with metrics.
func (s *Store) Results(ctx context.Context, runID int64) ([]*results.Result, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, run_id, variant, repetition, seq, status, error, started_at, finished_at, provenance, document, artifact_dir, irqsoff_worst_us, irqsoff_holder FROM results WHERE run_id = ? ORDER BY seq, id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*results.Result
	byID := map[int64]*results.Result{}
	for rows.Next() {
		var r results.Result
		var started, finished sql.NullString
		var prov, doc string
		if err := rows.Scan(&r.ID, &r.RunID, &r.Variant, &r.Repetition, &r.Seq, &r.Status, &r.Error, &started, &finished, &prov, &doc, &r.ArtifactDir, &r.IrqsoffWorstUS, &r.IrqsoffHolder); err != nil {
			return nil, err
		}
		r.StartedAt, r.FinishedAt = parseTS(started), parseTS(finished)
		json.Unmarshal([]byte(prov), &r.Provenance)
		r.Document = []byte(doc)
		out = append(out, &r)
		byID[r.ID] = &r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	mrows, err := s.db.QueryContext(ctx, `SELECT m.result_id, m.name, m.unit, m.direction, m.value FROM metrics m JOIN results r ON r.id = m.result_id WHERE r.run_id = ? ORDER BY m.result_id, m.rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	for mrows.Next() {
		var id int64
		var m report.Metric
		var dir string
		if err := mrows.Scan(&id, &m.Name, &m.Unit, &dir, &m.Value); err != nil {
			return nil, err
		}
		m.Direction = report.Direction(dir)
		if r := byID[id]; r != nil {
			r.Metrics = append(r.Metrics, m)
		}
	}
	return out, mrows.Err()
}

var _ results.Store = (*Store)(nil)
