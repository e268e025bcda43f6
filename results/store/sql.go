// Package store is kregress's results store: results.Store implemented once
// for every SQL database kregress supports (sql.go), a dialect per database
// saying what differs (sqlite.go: the default, one file; postgres.go: a
// team's shared server), the opener that picks one from a store's name
// (open.go), and the parsing and redaction of PostgreSQL DSNs (dsn.go), so
// that no password reaches a log line or a stored configuration. Each
// result is written in its own transaction as soon as its cell ends, so an
// interrupted run keeps every cell that completed.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/names"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// dialect is what differs between databases.
type dialect struct {
	Name   string
	Driver string
	// Dollar placeholders ($1, $2) instead of ?.
	Dollar bool
	// Types substituted into the migrations.
	ID, Float string
	// Lock serialises migrations between processes (inside the
	// migration transaction); empty when the database does it itself.
	Lock string
	// RowLock is appended to a SELECT to lock the rows it reads until
	// the transaction ends (" FOR UPDATE"); empty when write
	// transactions are serialised anyway (SQLite's BEGIN IMMEDIATE).
	RowLock string
}

// migrations, in order; {{id}} and {{float}} take the dialect's types.
var migrations = []string{
	// 1: initial schema
	`CREATE TABLE runs (
		id {{id}},
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
		id {{id}},
		run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
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
		irqsoff_worst_us {{float}} NOT NULL DEFAULT 0,
		irqsoff_holder TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX results_run ON results(run_id);
	CREATE TABLE metrics (
		result_id BIGINT NOT NULL REFERENCES results(id) ON DELETE CASCADE,
		name TEXT NOT NULL,
		unit TEXT NOT NULL,
		direction TEXT NOT NULL,
		value {{float}} NOT NULL,
		PRIMARY KEY (result_id, name)
	)`,
	// 2: who runs a run, so a run whose kregress died (kill -9) can be
	// told from one still going, and marked interrupted.
	`ALTER TABLE runs ADD COLUMN hostname TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE metrics ADD COLUMN ord INTEGER NOT NULL DEFAULT 0`,
	// 3: the kernel's cgroup selftests, one row per test per cell.
	// ("program", not "binary": BINARY is reserved in PostgreSQL.)
	`CREATE TABLE selftests (
		result_id BIGINT NOT NULL REFERENCES results(id) ON DELETE CASCADE,
		ord INTEGER NOT NULL,
		program TEXT NOT NULL,
		name TEXT NOT NULL,
		outcome TEXT NOT NULL,
		detail TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (result_id, ord)
	)`,
	// 4: the kernel's own reports (WARNING, BUG, lockdep, ...) per cell.
	`CREATE TABLE findings (
		result_id BIGINT NOT NULL REFERENCES results(id) ON DELETE CASCADE,
		ord INTEGER NOT NULL,
		kind TEXT NOT NULL,
		title TEXT NOT NULL,
		count INTEGER NOT NULL,
		excerpt TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (result_id, ord)
	)`,
	// 5: judgements on runs (a nightly's "good", a person's "accepted").
	`CREATE TABLE marks (
		id {{id}},
		run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		kind TEXT NOT NULL,
		who TEXT NOT NULL DEFAULT '',
		reason TEXT NOT NULL DEFAULT '',
		at TEXT NOT NULL
	);
	CREATE INDEX marks_run ON marks(run_id)`,
	// 6: bisects, their spec and state as JSON (see orchestrator/bisect).
	`CREATE TABLE bisects (
		id {{id}},
		experiment TEXT NOT NULL,
		status TEXT NOT NULL,
		spec TEXT NOT NULL,
		state TEXT NOT NULL DEFAULT '',
		started_at TEXT NOT NULL,
		finished_at TEXT
	)`,
	// 7: one current result per cell. A cell stored twice (a Kubernetes
	// or Slurm retry of a task that had stored its result, a resume
	// re-running an interrupted cell) keeps every row, but only one is
	// current; the others are history (superseded = 1). Existing
	// duplicates are resolved by the rule AddResult applies (see
	// results.Status.Infra): the first kernel outcome stays current,
	// else the newest row. Nothing is deleted. seq 0 means "position not
	// recorded" (hand-made or legacy rows) and is never deduplicated.
	`ALTER TABLE results ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
	UPDATE results SET superseded = 1 WHERE seq > 0 AND id <> (
		SELECT k.id FROM results k WHERE k.run_id = results.run_id AND k.seq = results.seq
		ORDER BY CASE WHEN k.status IN ('incomplete', 'infra_error') THEN 1 ELSE 0 END,
		         CASE WHEN k.status IN ('incomplete', 'infra_error') THEN -k.id ELSE k.id END
		LIMIT 1);
	CREATE UNIQUE INDEX results_cell ON results(run_id, seq) WHERE superseded = 0 AND seq > 0`,
}

// SchemaVersion is the version this code writes.
var SchemaVersion = len(migrations)

// Store is a results store on a SQL database.
type Store struct {
	db       *sql.DB
	dialect  dialect
	where    string // path or redacted DSN, for messages
	readOnly bool
}

// ErrReadOnly is returned by every write to a store opened read-only.
var ErrReadOnly = errors.New("the store was opened read-only")

// writable refuses a write on a read-only store before the database
// does (the database refuses it too: see OpenReadOnly).
func (s *Store) writable(op string) error {
	if s.readOnly {
		return fmt.Errorf("store %s: %s: %w", s.where, op, ErrReadOnly)
	}
	return nil
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// openDialect connects with the dialect and migrates the schema. where
// names the store in errors (a path, or a DSN without its password).
func openDialect(d dialect, dsn, where string) (*Store, error) {
	return openAt(d, dsn, where, SchemaVersion)
}

// connectTimeout bounds opening a store: connecting, then migrating or
// checking its schema version.
const connectTimeout = 15 * time.Second

// connectCause says, before the driver's own words, the causes a user
// can act on: nothing listening there, a host name that does not
// resolve, no answer in time, a password refused. "" for any other.
func connectCause(err error) string {
	var dns *net.DNSError
	var pg *pgconn.PgError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing is listening there (is the server running, on that host and port?); the driver said: "
	case errors.As(err, &dns):
		return "its host name does not resolve; the driver said: "
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s (a firewall, or the wrong host?); the driver said: ", connectTimeout)
	case errors.As(err, &pg) && (pg.Code == "28P01" || pg.Code == "28000"):
		return "the server refused the user or password; the driver said: "
	}
	return ""
}

// connect opens the database and checks within ctx that it answers: the
// first steps of opening a store read-write and read-only alike.
func connect(ctx context.Context, d dialect, dsn, where string) (*sql.DB, error) {
	db, err := sql.Open(d.Driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", where, redactErr(err, dsn))
	}
	// The driver's errors may quote the DSN (pgx's parse errors) or a
	// part of it (a host lookup): only their redacted text goes on.
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: cannot connect: %s%w", where, connectCause(err), oneLine(redactErr(err, dsn)))
	}
	return db, nil
}

// openAt is openDialect migrating only up to version: how the tests make
// a store of an older kregress, to check that this one migrates it.
func openAt(d dialect, dsn, where string, version int) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	db, err := connect(ctx, d, dsn, where)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, dialect: d, where: where}
	if err := s.migrate(ctx, version); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", where, redactErr(err, dsn))
	}
	return s, nil
}

// openDialectReadOnly connects without migrating or writing anything: the
// database must already hold this kregress's schema. The caller's DSN
// must make the connection read-only at the database too (SQLite
// mode=ro or immutable=1, PostgreSQL default_transaction_read_only), so
// that a bug here cannot write either.
func openDialectReadOnly(d dialect, dsn, where string) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	db, err := connect(ctx, d, dsn, where)
	if err != nil {
		return nil, err
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT version FROM kregress_schema`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: not a kregress store, or unreadable (%v)", where, redactErr(err, dsn))
	}
	switch {
	case v > SchemaVersion:
		db.Close()
		return nil, fmt.Errorf("results store %s: schema version %d is newer than this kregress understands (%d): upgrade kregress", where, v, SchemaVersion)
	case v < SchemaVersion:
		db.Close()
		return nil, fmt.Errorf("results store %s: schema version %d was written by an older kregress; this one reads version %d and does not migrate a store it only reads: `kregress results migrate` upgrades it (it then needs this kregress or newer)", where, v, SchemaVersion)
	}
	return &Store{db: db, dialect: d, where: where, readOnly: true}, nil
}

// Where names the store (path or redacted DSN).
func (s *Store) Where() string { return s.where }

// Path is Where, for callers that print it.
func (s *Store) Path() string { return s.where }

// DB exposes the handle for tests.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// q rewrites ? placeholders for the dialect.
func (s *Store) q(query string) string {
	if !s.dialect.Dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *Store) migrate(ctx context.Context, target int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect.Lock != "" {
		if _, err := tx.ExecContext(ctx, s.dialect.Lock); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kregress_schema (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("not a usable %s database: %w", s.dialect.Name, err)
	}
	var v int
	err = tx.QueryRowContext(ctx, `SELECT version FROM kregress_schema`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		v = 0
		if _, err := tx.ExecContext(ctx, `INSERT INTO kregress_schema (version) VALUES (0)`); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this kregress understands (%d): upgrade kregress", v, SchemaVersion)
	}
	for ; v < target; v++ {
		ddl := strings.NewReplacer("{{id}}", s.dialect.ID, "{{float}}", s.dialect.Float).Replace(migrations[v])
		for _, stmt := range strings.Split(ddl, ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE kregress_schema SET version = ?`), v+1); err != nil {
			return err
		}
	}
	return tx.Commit()
}

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

// CreateRun inserts r and sets its ID. The run records this host and
// process, so MarkStale can tell a dead run from a live one.
func (s *Store) CreateRun(ctx context.Context, r *results.Run) error {
	if err := s.writable("create run"); err != nil {
		return err
	}
	return s.createRun(ctx, s.db, r)
}

// queryer is what a *sql.DB and a *sql.Tx share.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) createRun(ctx context.Context, db queryer, r *results.Run) error {
	// The variants are stored comma-joined: a name outside the one
	// character set (a comma in it) would come back as other variants.
	for _, v := range append([]string{r.Baseline}, r.Variants...) {
		if v == "" {
			continue
		}
		if err := names.Check(names.Variant, v); err != nil {
			return usage.Wrap(fmt.Errorf("store %s: run not stored: %w", s.where, err))
		}
	}
	host, _ := json.Marshal(r.Host)
	hostname, _ := os.Hostname()
	err := db.QueryRowContext(ctx, s.q(`INSERT INTO runs (experiment, family, baseline, variants, started_at, status, error, config, host, hostname, pid) VALUES (?,?,?,?,?,?,?,?,?,?,?) RETURNING id`),
		r.Experiment, r.Family, r.Baseline, strings.Join(r.Variants, ","), ts(r.StartedAt), r.Status, r.Error, r.Config, string(host), hostname, os.Getpid()).Scan(&r.ID)
	if err != nil {
		return fmt.Errorf("store %s: create run: %w", s.where, err)
	}
	return nil
}

// FinishRun sets a run's final status.
func (s *Store) FinishRun(ctx context.Context, id int64, status results.RunStatus, errText string) error {
	if err := s.writable("finish run"); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?`), status, errText, ts(time.Now()), id)
	if err != nil {
		return fmt.Errorf("store %s: finish run %d: %w", s.where, id, err)
	}
	return nil
}

// AddResult inserts a result with its metrics, selftests and kernel
// reports in one transaction. A result for a cell (run, seq) that
// already has one is kept too, and one of the two is current (listed by
// Results, counted by CountResults) while the other becomes history
// (History): the current one stays unless it is a harness status
// (results.Status.Infra), so a retry never replaces a measurement
// with "the task was killed", and a measurement replaces an interrupted
// attempt. r.Superseded says whether r was stored as history.
func (s *Store) AddResult(ctx context.Context, r *results.Result) error {
	op := fmt.Sprintf("add result of run %d cell %d", r.RunID, r.Seq)
	return s.inWriteTx(ctx, op, func(tx *sql.Tx) error {
		return s.addResult(ctx, tx, r)
	})
}

// inWriteTx runs fn in one transaction of a writable store and commits
// it, so that every write of several statements refuses a read-only
// store, rolls back a failed fn and wraps its errors the same way. op
// names the write in those errors; fn's own errors are returned as they
// are.
func (s *Store) inWriteTx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	if err := s.writable(op); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %s: %s: %w", s.where, op, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store %s: %s: %w", s.where, op, err)
	}
	return nil
}

func (s *Store) addResult(ctx context.Context, tx *sql.Tx, r *results.Result) error {
	// Lock the run's row: two tasks storing the same cell at once are
	// serialised, so exactly one of their rows is current.
	var runID int64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM runs WHERE id = ?`+s.dialect.RowLock), r.RunID).Scan(&runID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store %s: add result: no run %d", s.where, r.RunID)
		}
		return fmt.Errorf("store %s: add result: %w", s.where, err)
	}
	r.Superseded = false
	if r.Seq > 0 {
		var curID int64
		var curStatus results.Status
		err := tx.QueryRowContext(ctx, s.q(`SELECT id, status FROM results WHERE run_id = ? AND seq = ? AND superseded = 0`), r.RunID, r.Seq).Scan(&curID, &curStatus)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store %s: add result: %w", s.where, err)
		case curStatus.Infra():
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE results SET superseded = 1 WHERE id = ?`), curID); err != nil {
				return fmt.Errorf("store %s: add result: %w", s.where, err)
			}
		default:
			r.Superseded = true
		}
	}
	prov, _ := json.Marshal(r.Provenance)
	superseded := 0
	if r.Superseded {
		superseded = 1
	}
	err := tx.QueryRowContext(ctx, s.q(`INSERT INTO results (run_id, variant, repetition, seq, status, error, started_at, finished_at, provenance, document, artifact_dir, irqsoff_worst_us, irqsoff_holder, superseded) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id`),
		r.RunID, r.Variant, r.Repetition, r.Seq, r.Status, r.Error, ts(r.StartedAt), ts(r.FinishedAt), string(prov), string(r.Document), r.ArtifactDir, r.IrqsoffWorstUS, r.IrqsoffHolder, superseded).Scan(&r.ID)
	if err != nil {
		return fmt.Errorf("store %s: add result: %w", s.where, err)
	}
	for i, m := range r.Metrics {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO metrics (result_id, name, unit, direction, value, ord) VALUES (?,?,?,?,?,?)`), r.ID, m.Name, m.Unit, string(m.Direction), m.Value, i); err != nil {
			return fmt.Errorf("store %s: add metric %s: %w", s.where, m.Name, err)
		}
	}
	for i, st := range r.Selftests {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO selftests (result_id, ord, program, name, outcome, detail) VALUES (?,?,?,?,?,?)`), r.ID, i, st.Binary, st.Name, st.Outcome, st.Detail); err != nil {
			return fmt.Errorf("store %s: add selftest %s: %w", s.where, st.Key(), err)
		}
	}
	for i, f := range r.Findings {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO findings (result_id, ord, kind, title, count, excerpt) VALUES (?,?,?,?,?,?)`), r.ID, i, string(f.Kind), f.Title, f.Count, f.Excerpt); err != nil {
			return fmt.Errorf("store %s: add kernel report %q: %w", s.where, f.Title, err)
		}
	}
	return nil
}

// ImportRun stores a run and all its results in one transaction: a
// failure part way (a full disk, a bad row) leaves the store as it was,
// never a run that claims a status its results do not back. The run's
// status is taken as given; r.ID and each result's RunID and ID are set.
func (s *Store) ImportRun(ctx context.Context, run *results.Run, rs []*results.Result) error {
	return s.inWriteTx(ctx, "import run", func(tx *sql.Tx) error {
		if err := s.createRun(ctx, tx, run); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET finished_at = ? WHERE id = ?`), ts(run.FinishedAt), run.ID); err != nil {
			return fmt.Errorf("store %s: import run: %w", s.where, err)
		}
		for i, r := range rs {
			r.RunID = run.ID
			if err := s.addResult(ctx, tx, r); err != nil {
				return fmt.Errorf("result %d of %d: %w", i+1, len(rs), err)
			}
		}
		return nil
	})
}

const runCols = `id, experiment, family, baseline, variants, started_at, finished_at, status, error, config, host, hostname, pid`

func scanRun(sc interface{ Scan(...any) error }) (*results.Run, error) {
	var r results.Run
	var variants, host string
	var started, finished sql.NullString
	if err := sc.Scan(&r.ID, &r.Experiment, &r.Family, &r.Baseline, &variants, &started, &finished, &r.Status, &r.Error, &r.Config, &host, &r.Owner.Hostname, &r.Owner.PID); err != nil {
		return nil, err
	}
	if variants != "" {
		r.Variants = strings.Split(variants, ",")
	}
	r.StartedAt, r.FinishedAt = parseTS(started), parseTS(finished)
	json.Unmarshal([]byte(host), &r.Host)
	results.EscapeRun(&r)
	return &r, nil
}

// readErr names the store and what was being read in a database error
// (a corrupt page, an I/O error): without it "database disk image is
// malformed" does not say which store.
func (s *Store) readErr(op string, err error) error {
	return fmt.Errorf("store %s: %s: %w", s.where, op, err)
}

// GetRun returns run id.
func (s *Store) GetRun(ctx context.Context, id int64) (*results.Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, s.q(`SELECT `+runCols+` FROM runs WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, usage.Errorf("store %s: no run %d (see `kregress results list`)", s.where, id)
	}
	if err != nil {
		return nil, s.readErr(fmt.Sprintf("read run %d", id), err)
	}
	return r, nil
}

// LatestRun returns the newest run (of experiment, if given).
func (s *Store) LatestRun(ctx context.Context, experiment string) (*results.Run, error) {
	runs, err := s.FindRuns(ctx, results.Filter{Experiment: experiment, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("store %s: no runs yet (start one with `kregress run`)", s.where)
	}
	return runs[0], nil
}

// ListRuns returns the newest runs first.
func (s *Store) ListRuns(ctx context.Context, limit int) ([]*results.Run, error) {
	return s.FindRuns(ctx, results.Filter{Limit: limit})
}

// FindRuns returns the runs matching f, newest first.
func (s *Store) FindRuns(ctx context.Context, f results.Filter) ([]*results.Run, error) {
	q := `SELECT ` + runCols + ` FROM runs WHERE 1=1`
	var args []any
	if f.Experiment != "" {
		q += ` AND experiment = ?`
		args = append(args, f.Experiment)
	}
	if f.Family != "" {
		q += ` AND family = ?`
		args = append(args, f.Family)
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	if !f.Before.IsZero() {
		q += ` AND started_at < ?`
		args = append(args, ts(f.Before))
	}
	q += ` ORDER BY id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + strconv.Itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, s.readErr("list runs", err)
	}
	defer rows.Close()
	var out []*results.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.readErr("list runs", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("list runs", err)
	}
	return out, nil
}

// DeleteRun removes a run, its results and metrics.
func (s *Store) DeleteRun(ctx context.Context, id int64) error {
	return s.inWriteTx(ctx, "delete run", func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM metrics WHERE result_id IN (SELECT id FROM results WHERE run_id = ?)`,
			`DELETE FROM selftests WHERE result_id IN (SELECT id FROM results WHERE run_id = ?)`,
			`DELETE FROM findings WHERE result_id IN (SELECT id FROM results WHERE run_id = ?)`,
			`DELETE FROM results WHERE run_id = ?`,
			`DELETE FROM marks WHERE run_id = ?`,
			`DELETE FROM runs WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, s.q(q), id); err != nil {
				return fmt.Errorf("store %s: delete run %d: %w", s.where, id, err)
			}
		}
		return nil
	})
}

// AddMark keeps a judgement on a run.
func (s *Store) AddMark(ctx context.Context, m *results.Mark) error {
	if err := s.writable("mark run"); err != nil {
		return err
	}
	if m.At.IsZero() {
		m.At = time.Now().UTC()
	}
	if _, err := s.GetRun(ctx, m.RunID); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO marks (run_id, kind, who, reason, at) VALUES (?,?,?,?,?)`), m.RunID, string(m.Kind), m.Who, m.Reason, ts(m.At)); err != nil {
		return fmt.Errorf("store %s: mark run %d %s: %w", s.where, m.RunID, m.Kind, err)
	}
	return nil
}

// Marks returns a run's marks, oldest first.
func (s *Store) Marks(ctx context.Context, runID int64) ([]results.Mark, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT run_id, kind, who, reason, at FROM marks WHERE run_id = ? ORDER BY id`), runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []results.Mark
	for rows.Next() {
		var m results.Mark
		var kind string
		var at sql.NullString
		if err := rows.Scan(&m.RunID, &kind, &m.Who, &m.Reason, &at); err != nil {
			return nil, err
		}
		m.Kind, m.At = results.MarkKind(kind), parseTS(at)
		results.EscapeMark(&m)
		out = append(out, m)
	}
	return out, rows.Err()
}

// CreateBisect stores a new bisect and sets its ID.
func (s *Store) CreateBisect(ctx context.Context, b *results.Bisect) error {
	if err := s.writable("create bisect"); err != nil {
		return err
	}
	if b.StartedAt.IsZero() {
		b.StartedAt = time.Now().UTC()
	}
	err := s.db.QueryRowContext(ctx, s.q(`INSERT INTO bisects (experiment, status, spec, state, started_at) VALUES (?,?,?,?,?) RETURNING id`),
		b.Experiment, b.Status, b.Spec, b.State, ts(b.StartedAt)).Scan(&b.ID)
	if err != nil {
		return fmt.Errorf("store %s: create bisect: %w", s.where, err)
	}
	return nil
}

// SaveBisect updates a bisect's status, state and finish time.
func (s *Store) SaveBisect(ctx context.Context, b *results.Bisect) error {
	if err := s.writable("save bisect"); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE bisects SET status = ?, state = ?, finished_at = ? WHERE id = ?`), b.Status, b.State, ts(b.FinishedAt), b.ID)
	if err != nil {
		return fmt.Errorf("store %s: save bisect %d: %w", s.where, b.ID, err)
	}
	return nil
}

// GetBisect reads bisect id.
func (s *Store) GetBisect(ctx context.Context, id int64) (*results.Bisect, error) {
	var b results.Bisect
	var started, finished sql.NullString
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, experiment, status, spec, state, started_at, finished_at FROM bisects WHERE id = ?`), id).
		Scan(&b.ID, &b.Experiment, &b.Status, &b.Spec, &b.State, &started, &finished)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, usage.Errorf("store %s: no bisect %d (see `kregress bisect list`)", s.where, id)
	}
	if err != nil {
		return nil, err
	}
	b.StartedAt, b.FinishedAt = parseTS(started), parseTS(finished)
	return &b, nil
}

// ListBisects returns the newest bisects first, at most limit (0: all).
func (s *Store) ListBisects(ctx context.Context, limit int) ([]*results.Bisect, error) {
	q := `SELECT id, experiment, status, spec, state, started_at, finished_at FROM bisects ORDER BY id DESC`
	var args []any
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: list bisects: %w", s.where, err)
	}
	defer rows.Close()
	var out []*results.Bisect
	for rows.Next() {
		var b results.Bisect
		var started, finished sql.NullString
		if err := rows.Scan(&b.ID, &b.Experiment, &b.Status, &b.Spec, &b.State, &started, &finished); err != nil {
			return nil, err
		}
		b.StartedAt, b.FinishedAt = parseTS(started), parseTS(finished)
		out = append(out, &b)
	}
	return out, rows.Err()
}

// StaleRun is a run recorded as running whose kregress process, on this
// host, no longer exists (kill -9, a crash, a reboot).
type StaleRun struct {
	ID  int64
	PID int64
}

// StaleRuns lists the stale runs without changing anything, so a
// read-only command can say which "running" runs are in fact dead.
func (s *Store) StaleRuns(ctx context.Context) ([]StaleRun, error) {
	hostname, _ := os.Hostname()
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, pid FROM runs WHERE status = ? AND hostname = ? AND pid <> ?`), results.RunRunning, hostname, detachedPID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var dead []StaleRun
	for rows.Next() {
		var st StaleRun
		if err := rows.Scan(&st.ID, &st.PID); err != nil {
			return nil, err
		}
		if !results.ProcessAlive(int(st.PID)) {
			dead = append(dead, st)
		}
	}
	return dead, rows.Err()
}

// MarkStale marks the stale runs (StaleRuns) interrupted. Their
// completed cells stay as they are.
func (s *Store) MarkStale(ctx context.Context) (int, error) {
	if err := s.writable("mark stale runs"); err != nil {
		return 0, err
	}
	dead, err := s.StaleRuns(ctx)
	if err != nil {
		return 0, err
	}
	for _, d := range dead {
		msg := fmt.Sprintf("kregress (pid %d) ended without finishing this run; completed cells are kept", d.PID)
		if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ? AND status = ?`),
			results.RunInterrupted, msg, ts(time.Now()), d.ID, results.RunRunning); err != nil {
			return 0, err
		}
	}
	return len(dead), nil
}

// detachedPID marks a run no kregress process waits for (DetachRun).
const detachedPID = results.DetachedPID

// MarkInterrupted implements results.Store.
func (s *Store) MarkInterrupted(ctx context.Context, id int64, note string) error {
	if err := s.writable("mark run interrupted"); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ? AND status = ?`),
		results.RunInterrupted, note, ts(time.Now()), id, results.RunRunning)
	if err != nil {
		return fmt.Errorf("store %s: mark run %d interrupted: %w", s.where, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store %s: mark run %d interrupted: %w", s.where, id, err)
	} else if n == 0 {
		run, err := s.GetRun(ctx, id)
		if err != nil {
			return err
		}
		return fmt.Errorf("store %s: run %d is %s, not running: nothing to mark", s.where, id, run.Status)
	}
	return nil
}

// DetachRun implements results.Store.
func (s *Store) DetachRun(ctx context.Context, id int64) error {
	if err := s.writable("detach run"); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET pid = ? WHERE id = ?`), detachedPID, id); err != nil {
		return fmt.Errorf("store %s: detach run %d: %w", s.where, id, err)
	}
	return nil
}

// ReopenRun implements results.Store.
func (s *Store) ReopenRun(ctx context.Context, id int64) error {
	if err := s.writable("reopen run"); err != nil {
		return err
	}
	hostname, _ := os.Hostname()
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = '', finished_at = NULL, pid = ?, hostname = ? WHERE id = ?`),
		results.RunRunning, os.Getpid(), hostname, id); err != nil {
		return fmt.Errorf("store %s: reopen run %d: %w", s.where, id, err)
	}
	return nil
}

// ExtendRun reopens run id with configYAML as its configuration.
func (s *Store) ExtendRun(ctx context.Context, id int64, configYAML string) error {
	if err := s.writable("extend run"); err != nil {
		return err
	}
	hostname, _ := os.Hostname()
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = '', finished_at = NULL, pid = ?, hostname = ?, config = ? WHERE id = ?`),
		results.RunRunning, os.Getpid(), hostname, configYAML, id); err != nil {
		return fmt.Errorf("store: extend run %d: %w", id, err)
	}
	return nil
}

// CountResults counts a run's results by status.
func (s *Store) CountResults(ctx context.Context, runID int64) (map[results.Status]int, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT status, COUNT(*) FROM results WHERE run_id = ? AND superseded = 0 GROUP BY status`), runID)
	if err != nil {
		return nil, fmt.Errorf("store %s: count results of run %d: %w", s.where, runID, err)
	}
	defer rows.Close()
	counts := map[results.Status]int{}
	for rows.Next() {
		var status results.Status
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return nil, fmt.Errorf("store %s: count results of run %d: %w", s.where, runID, err)
		}
		counts[status] = n
	}
	return counts, rows.Err()
}

// Results returns a run's current results (one per cell) in execution
// order, with metrics, selftests and kernel reports.
func (s *Store) Results(ctx context.Context, runID int64) ([]*results.Result, error) {
	rs, err := s.loadResults(ctx, runID, false)
	if err != nil {
		return nil, s.readErr(fmt.Sprintf("read the results of run %d", runID), err)
	}
	return rs, nil
}

// History returns the results of a run that are not current: earlier
// or later attempts at a cell that has a current result (see AddResult),
// in cell order and oldest first within a cell, each with Superseded set.
func (s *Store) History(ctx context.Context, runID int64) ([]*results.Result, error) {
	return s.loadResults(ctx, runID, true)
}

func (s *Store) loadResults(ctx context.Context, runID int64, history bool) ([]*results.Result, error) {
	sup := 0
	if history {
		sup = 1
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, run_id, variant, repetition, seq, status, error, started_at, finished_at, provenance, document, artifact_dir, irqsoff_worst_us, irqsoff_holder FROM results WHERE run_id = ? AND superseded = ? ORDER BY seq, id`), runID, sup)
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
		r.Superseded = history
		out = append(out, &r)
		byID[r.ID] = &r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The child tables, each in one query for the whole run, attached
	// to their results in the order they were added.
	err = loadChildren(ctx, s, `SELECT m.result_id, m.name, m.unit, m.direction, m.value FROM metrics m JOIN results r ON r.id = m.result_id WHERE r.run_id = ? AND r.superseded = ? ORDER BY m.result_id, m.ord, m.name`, runID, sup, byID,
		func(rows *sql.Rows) (id int64, m agentproto.Metric, err error) {
			var dir string
			err = rows.Scan(&id, &m.Name, &m.Unit, &dir, &m.Value)
			m.Direction = agentproto.Direction(dir)
			return id, m, err
		},
		func(r *results.Result, m agentproto.Metric) { r.Metrics = append(r.Metrics, m) })
	if err != nil {
		return nil, err
	}
	err = loadChildren(ctx, s, `SELECT t.result_id, t.program, t.name, t.outcome, t.detail FROM selftests t JOIN results r ON r.id = t.result_id WHERE r.run_id = ? AND r.superseded = ? ORDER BY t.result_id, t.ord`, runID, sup, byID,
		func(rows *sql.Rows) (id int64, st agentproto.SelftestResult, err error) {
			err = rows.Scan(&id, &st.Binary, &st.Name, &st.Outcome, &st.Detail)
			return id, st, err
		},
		func(r *results.Result, st agentproto.SelftestResult) { r.Selftests = append(r.Selftests, st) })
	if err != nil {
		return nil, err
	}
	err = loadChildren(ctx, s, `SELECT f.result_id, f.kind, f.title, f.count, f.excerpt FROM findings f JOIN results r ON r.id = f.result_id WHERE r.run_id = ? AND r.superseded = ? ORDER BY f.result_id, f.ord`, runID, sup, byID,
		func(rows *sql.Rows) (id int64, f results.Finding, err error) {
			var kind string
			err = rows.Scan(&id, &kind, &f.Title, &f.Count, &f.Excerpt)
			f.Kind = results.FindingKind(kind)
			return id, f, err
		},
		func(r *results.Result, f results.Finding) { r.Findings = append(r.Findings, f) })
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		results.EscapeResult(r)
	}
	return out, nil
}

// loadChildren reads one child table's rows (metrics, selftests,
// findings) of run runID's results, current or superseded (sup), with
// query, whose first column is the row's result ID: scan reads a row,
// add attaches it to its result in byID (a row of a result not loaded
// is skipped).
func loadChildren[T any](ctx context.Context, s *Store, query string, runID int64, sup int, byID map[int64]*results.Result,
	scan func(*sql.Rows) (int64, T, error), add func(*results.Result, T)) error {
	rows, err := s.db.QueryContext(ctx, s.q(query), runID, sup)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		id, v, err := scan(rows)
		if err != nil {
			return err
		}
		if r := byID[id]; r != nil {
			add(r, v)
		}
	}
	return rows.Err()
}

var _ results.Store = (*Store)(nil)
