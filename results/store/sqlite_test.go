package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

func TestForeignFileIsRefusedUntouched(t *testing.T) {
	for name, content := range map[string][]byte{
		"text":           []byte("this is not a database, it is someone's notes\n"),
		"corrupt sqlite": append([]byte("SQLite format 3\x00"), make([]byte, 80)...),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "notes.db")
			os.WriteFile(path, content, 0o644)
			_, err := OpenSQLite(path)
			if err == nil {
				t.Fatal("opened a foreign file as a store")
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(content) {
				t.Fatal("foreign file modified")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("files created next to it: %v", entries)
			}
		})
	}
}

// A store written by an older kregress (schema 3: before kernel reports,
// marks and bisects) is migrated in place on open; its runs stay readable
// and the new tables work.
func TestOlderStoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := openAt(sqlite, "file:"+path+"?_pragma=foreign_keys(1)", path, 3)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Rows as that kregress wrote them (today's AddResult writes columns
	// schema 3 does not have).
	db := old.DB()
	res, err := db.Exec(`INSERT INTO runs (experiment, family, baseline, variants, started_at, status, config, host) VALUES ('rstat-relock', 'rstat', 'stock', 'stock', ?, 'complete', 'x: 1', '{}')`, time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		t.Fatal(err)
	}
	runID, _ := res.LastInsertId()
	run := &results.Run{ID: runID}
	res, err = db.Exec(`INSERT INTO results (run_id, variant, repetition, seq, status, started_at, finished_at, provenance) VALUES (?, 'stock', 1, 1, 'ok', '', '', '{}')`, runID)
	if err != nil {
		t.Fatal(err)
	}
	resID, _ := res.LastInsertId()
	if _, err := db.Exec(`INSERT INTO metrics (result_id, name, unit, direction, value) VALUES (?, 'reads_per_sec', 'reads/s', ?, 1)`, resID, string(agentproto.HigherIsBetter)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatalf("migrating schema 3: %v", err)
	}
	defer s.Close()
	var v int
	if err := s.DB().QueryRow(`SELECT version FROM kregress_schema`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d after open, want %d (%v)", v, SchemaVersion, err)
	}
	rs, err := s.Results(ctx, run.ID)
	if err != nil || len(rs) != 1 || rs[0].Metrics[0].Name != "reads_per_sec" {
		t.Fatalf("old results after migration: %+v %v", rs, err)
	}
	if err := s.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkAccepted, Who: "t", Reason: "old baseline"}); err != nil {
		t.Fatalf("marking an old run: %v", err)
	}
}

// A SQLite database of someone else's (tables, no kregress_schema) is
// refused before anything is written: same bytes, same mtime, still in
// its rollback-journal mode, no -wal or -shm beside it.
func TestForeignSQLiteDatabaseIsRefusedUntouched(t *testing.T) {
	for name, ddl := range map[string]string{
		"notes":          `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')`,
		"own runs table": `CREATE TABLE runs (id INTEGER PRIMARY KEY, owner TEXT)`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "foreign.db")
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
			if err != nil {
				t.Fatal(err)
			}
			for _, stmt := range strings.Split(ddl, ";") {
				if _, err := db.Exec(stmt); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(path, old, old)
			before, _ := os.ReadFile(path)
			for _, openIt := range []func(string) (*Store, error){OpenSQLite, OpenSQLiteReadOnly} {
				s, err := openIt(path)
				if err == nil {
					s.Close()
					t.Fatal("opened someone else's SQLite database as a store")
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a kregress store") {
					t.Fatalf("error does not say what is wrong with which file: %v", err)
				}
			}
			after, _ := os.ReadFile(path)
			st, _ := os.Stat(path)
			if !bytes.Equal(before, after) || !st.ModTime().Equal(old) {
				t.Fatal("the foreign database was modified")
			}
			if after[18] != 1 || after[19] != 1 {
				t.Fatalf("the foreign database was switched to WAL (header bytes 18-19: %d %d)", after[18], after[19])
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("files created next to it: %v", entries)
			}
		})
	}
	// An empty SQLite database (no tables) may become a store.
	path := filepath.Join(t.TempDir(), "empty.db")
	db, _ := sql.Open("sqlite", "file:"+path)
	db.Exec(`PRAGMA user_version = 1`)
	db.Close()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatalf("an empty SQLite database: %v", err)
	}
	s.Close()
}

// Opening read-only writes nothing: the store's bytes and mtime stay, no
// -wal or -shm appears, no migration runs and no stale run is marked.
// (Tests run as root, where permission bits stop no write: this checks
// what the open does, not that EACCES is handled.)
func TestReadOnlyOpenWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kregress.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "a", Seq: 1, Status: results.StatusOK}); err != nil {
		t.Fatal(err)
	}
	s.DB().Exec(`UPDATE runs SET pid = ?`, 1<<30) // its kregress is gone
	s.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a closed store left %v", entries)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before, _ := os.ReadFile(path)
	for i := 0; i < 2; i++ { // twice: the first open must leave nothing that breaks the second
		r, err := OpenSQLiteReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		if runs, err := r.FindRuns(ctx, results.Filter{}); err != nil || len(runs) != 1 || runs[0].Status != results.RunRunning {
			t.Fatalf("read-only list: %v %v", runs, err)
		}
		if rs, err := r.Results(ctx, run.ID); err != nil || len(rs) != 1 {
			t.Fatalf("read-only results: %v %v", rs, err)
		}
		r.Close()
	}
	after, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !st.ModTime().Equal(old) {
		t.Fatal("a read-only open modified the store")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a read-only open created %v", entries)
	}
	// While a writer has it open (a -wal exists), a reader sees its
	// committed cells through the -wal, and still writes nothing.
	os.Chmod(dir, 0o755)
	os.Chmod(path, 0o644)
	w, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "a", Seq: 2, Status: results.StatusOK}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenSQLiteReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rs, err := r.Results(ctx, run.ID); err != nil || len(rs) != 2 {
		t.Fatalf("reading beside a writer: %d results, %v", len(rs), err)
	}
}

// A store written by an older kregress is not migrated by a read-only
// open: it is refused with how to migrate it, and left as it was.
func TestReadOnlyOpenOfOlderStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := openAt(sqlite, "file:"+path, path, 6)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	before, _ := os.ReadFile(path)
	_, err = OpenSQLiteReadOnly(path)
	if err == nil || !strings.Contains(err.Error(), "schema version 6") || !strings.Contains(err.Error(), "kregress results migrate") {
		t.Fatalf("read-only open of a schema-6 store: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a read-only open migrated the store")
	}
}

// A store path with '?' or '#' opens that very file (not "a" with the
// rest taken as parameters).
func TestPathWithURICharacters(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a?mode=memory.db", "b#frag.db", "c%41.db"} {
		path := filepath.Join(dir, name)
		s, err := OpenSQLite(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("%s: the store is not in the file named: %v", name, err)
		}
		r, err := OpenSQLiteReadOnly(path)
		if err != nil {
			t.Fatalf("%s read-only: %v", name, err)
		}
		r.Close()
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Fatalf("files in the directory: %v (want exactly the three stores)", names)
	}
}

// Migration 7 resolves the duplicate cells an older kregress stored (a
// retried task) on SQLite: see migrateDuplicateCells.
func TestMigrationResolvesDuplicateCells(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dup.db")
	old, err := openAt(sqlite, "file:"+path+"?_pragma=foreign_keys(1)", path, 6)
	if err != nil {
		t.Fatal(err)
	}
	migrateDuplicateCells(t, old, func() (*Store, error) { return OpenSQLite(path) })
}

// migrateDuplicateCells stores through old (a store at schema 6, before
// migration 7) the duplicate cells an older kregress stored, closes it
// and reopens the database with reopen, which migrates it: every row is
// kept, one per cell is current, by the rule AddResult applies.
func migrateDuplicateCells(t *testing.T, old *Store, reopen func() (*Store, error)) {
	t.Helper()
	ctx := context.Background()
	var runID int64
	if err := old.DB().QueryRowContext(ctx, `INSERT INTO runs (experiment, family, baseline, variants, started_at, status, config, host) VALUES ('e', 'f', 'a', 'a', '', 'complete', 'x: 1', '{}') RETURNING id`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	// seq 1: ok then ok (a retry): the first stays. seq 2: infra_error
	// then crashed then incomplete: the crash (the kernel outcome)
	// stays. seq 3: incomplete then infra_error: the newest stays.
	// seq 0 (position not recorded) twice: both stay current.
	for _, row := range []struct {
		seq    int
		status string
	}{{1, "ok"}, {1, "ok"}, {2, "infra_error"}, {2, "crashed"}, {2, "incomplete"}, {3, "incomplete"}, {3, "infra_error"}, {0, "ok"}, {0, "ok"}} {
		if _, err := old.DB().ExecContext(ctx, old.q(`INSERT INTO results (run_id, variant, repetition, seq, status, started_at, finished_at, provenance) VALUES (?, 'a', 1, ?, ?, '', '', '{}')`), runID, row.seq, row.status); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	s, err := reopen()
	if err != nil {
		t.Fatalf("migrating a store with duplicate cells: %v", err)
	}
	defer s.Close()
	rs, err := s.Results(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%d:%d:%s", r.Seq, r.ID, r.Status))
	}
	if want := "0:8:ok 0:9:ok 1:1:ok 2:4:crashed 3:7:infra_error"; strings.Join(got, " ") != want {
		t.Fatalf("current after migration: %s\nwant %s", strings.Join(got, " "), want)
	}
	if hist, err := s.History(ctx, runID); err != nil || len(hist) != 4 {
		t.Fatalf("history after migration: %d rows (want 4), %v", len(hist), err)
	}
}

// A full disk (SQLite's max_page_count reached: SQLITE_FULL, what a full
// file system gives) part way through an import or a cell leaves nothing
// of either behind, and the store keeps working once there is room.
func TestDiskFullStoresNothingHalf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// One connection, so the page limit below holds for every statement.
	s.DB().SetMaxOpenConns(1)
	ctx := context.Background()
	var pages int
	if err := s.DB().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+8)); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte(`{"pad":"`+strings.Repeat("x", 1000)+`"}`), 6) // ~6 KB: a few pages per result
	run := &results.Run{Experiment: "imported", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), FinishedAt: time.Now(), Status: results.RunComplete, Config: "x: 1"}
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		rs = append(rs, &results.Result{Variant: "a", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK, Document: big,
			Metrics: []agentproto.Metric{{Name: "m", Unit: "u", Direction: agentproto.HigherIsBetter, Value: 1}}})
	}
	err = s.ImportRun(ctx, run, rs)
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("import onto a full disk: %v", err)
	}
	if runs, _ := s.FindRuns(ctx, results.Filter{}); len(runs) != 0 {
		t.Fatalf("a failed import left run %d (%s)", runs[0].ID, runs[0].Status)
	}
	var n int
	s.DB().QueryRow(`SELECT COUNT(*) FROM results`).Scan(&n)
	if n != 0 {
		t.Fatalf("a failed import left %d results", n)
	}
	// A cell that does not fit: not stored at all, the run unchanged.
	small := &results.Run{Experiment: "cells", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, small); err != nil {
		t.Fatal(err)
	}
	cell := &results.Result{RunID: small.ID, Variant: "a", Seq: 1, Status: results.StatusOK, Document: bytes.Repeat(big, 8),
		Metrics: []agentproto.Metric{{Name: "m", Unit: "u", Direction: agentproto.HigherIsBetter, Value: 1}}}
	if err := s.AddResult(ctx, cell); err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("a cell onto a full disk: %v", err)
	}
	s.DB().QueryRow(`SELECT COUNT(*) FROM results`).Scan(&n)
	var metrics int
	s.DB().QueryRow(`SELECT COUNT(*) FROM metrics`).Scan(&metrics)
	if n != 0 || metrics != 0 {
		t.Fatalf("a cell that did not fit left %d results and %d metrics", n, metrics)
	}
	// Room again: the import goes through whole.
	if _, err := s.DB().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	run.ID = 0
	if err := s.ImportRun(ctx, run, rs); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.Results(ctx, run.ID); len(back) != 6 {
		t.Fatalf("import after the disk had room: %d results", len(back))
	}
}

// testdata/schema7.db was written by kregress before the store was one
// package (main edd9ed9, sqlitestore.Open; the owner and finish time set
// by hand so the file holds nothing of the machine that wrote it): a run
// of two cells with metrics, selftests, kernel reports, a superseded
// retry, a mark and a bisect. This kregress opens it read-only and
// read-write, and reads back everything that one stored.
func TestStoreOfPreviousVersionOpens(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "schema7.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kregress.db")
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenSQLiteReadOnly(path)
	if err != nil {
		t.Fatalf("read-only open of the previous version's store: %v", err)
	}
	checkSchema7(t, ro)
	ro.Close()
	rw, err := OpenSQLite(path)
	if err != nil {
		t.Fatalf("open of the previous version's store: %v", err)
	}
	defer rw.Close()
	checkSchema7(t, rw)
	run := &results.Run{Experiment: "after", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning}
	if err := rw.CreateRun(context.Background(), run); err != nil || run.ID != 2 {
		t.Fatalf("a new run in the old store: id %d, %v", run.ID, err)
	}
}

// checkSchema7 checks that s reads back everything testdata/schema7.db
// stored: the run, its results, the superseded retry, the mark and the
// bisect.
func checkSchema7(t *testing.T, s *Store) {
	t.Helper()
	at := time.Date(2026, 12, 5, 15, 0, 0, 0, time.UTC)
	checkSchema7Run(t, s, at)
	checkSchema7Results(t, s)
	checkSchema7Records(t, s, at)
}

// checkSchema7Run checks run 1 of schema7.db, which started at at and
// finished an hour later.
func checkSchema7Run(t *testing.T, s *Store, at time.Time) {
	t.Helper()
	run, err := s.GetRun(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if run.Experiment != "rstat-relock" || run.Status != results.RunComplete || !run.StartedAt.Equal(at) || !run.FinishedAt.Equal(at.Add(time.Hour)) ||
		strings.Join(run.Variants, ",") != "stock,relock" || run.Host.Cores != 2 || run.Owner != (results.RunOwner{Hostname: "fixture-host", PID: 4242}) {
		t.Fatalf("run %+v", run)
	}
}

// checkSchema7Results checks run 1's two current results and everything
// the second one carries: metrics, selftests and kernel findings.
func checkSchema7Results(t *testing.T, s *Store) {
	t.Helper()
	rs, err := s.Results(context.Background(), 1)
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	r := rs[1]
	if r.Variant != "relock" || r.Seq != 2 || r.Provenance.KernelKey != "k-relock" || r.IrqsoffWorstUS != 42 || string(r.Document) != `{"v":1}` ||
		len(r.Metrics) != 2 || r.Metrics[0].Name != "reads_per_sec" || r.Metrics[0].Value != 101 || r.Metrics[1].Direction != agentproto.LowerIsBetter ||
		len(r.Selftests) != 1 || r.Selftests[0].Outcome != agentproto.SelftestPass ||
		len(r.Findings) != 1 || r.Findings[0].Count != 2 || r.Findings[0].Kind != results.FindingWarning {
		t.Fatalf("result %+v", r)
	}
}

// checkSchema7Records checks what schema7.db stored beside the results:
// the superseded retry in the history, the mark (made at at) and the
// bisect (finished an hour after at).
func checkSchema7Records(t *testing.T, s *Store, at time.Time) {
	t.Helper()
	ctx := context.Background()
	if hist, err := s.History(ctx, 1); err != nil || len(hist) != 1 || hist[0].Status != results.StatusIncomplete || hist[0].Seq != 1 {
		t.Fatalf("history %+v %v", hist, err)
	}
	if m, err := s.Marks(ctx, 1); err != nil || len(m) != 1 || m[0].Kind != results.MarkAccepted || m[0].Reason != "intended" || !m[0].At.Equal(at) {
		t.Fatalf("marks %+v %v", m, err)
	}
	if b, err := s.GetBisect(ctx, 1); err != nil || b.State != `{"culprit":"c"}` || !b.FinishedAt.Equal(at.Add(time.Hour)) {
		t.Fatalf("bisect %+v %v", b, err)
	}
}

// A store in a directory this process cannot write in is refused in the
// host's words with the path (SQLite's own: "unable to open database
// file (14)"), and nothing is left there.
func TestOpenSQLiteUnwritableSaysWhere(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		// root writes any directory's mode; sysfs refuses it new files.
		dir = "/sys"
	} else if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("no directory to refuse a store: %v", err)
	}
	path := filepath.Join(dir, "kregress-unwritable-test.db")
	s, err := OpenSQLite(path)
	if err == nil {
		s.Close()
		os.Remove(path)
		t.Fatalf("a store in %s opened", dir)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "permission denied") || strings.Contains(msg, "(14)") {
		t.Fatalf("error %q: want the host's permission denied naming %s", msg, path)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s left behind", path)
	}
}
