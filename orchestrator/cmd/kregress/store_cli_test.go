package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// A cell stored twice (a Kubernetes per-index retry of `kregress cell
// --index 0`) is one cell: the run is not complete while cell 2 has not
// run, and completes once it has.
func TestCellStoredTwiceDoesNotCompleteTheRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a", "b"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	s.DetachRun(ctx, run.ID)
	job := &pipeline.CellJob{RunID: run.ID, Cells: []pipeline.Cell{{Seq: 1, Variant: "a", Repetition: 1}, {Seq: 2, Variant: "b", Repetition: 1}}}
	for i := 0; i < 2; i++ {
		if err := s.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "a", Repetition: 1, Seq: 1, Status: results.StatusOK}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	// The retried task itself, through the command: cell 1 has a
	// measurement, so it says so and measures nothing (no QEMU needed).
	jobFile := filepath.Join(t.TempDir(), "job.json")
	if err := job.WriteFile(jobFile); err != nil {
		t.Fatal(err)
	}
	out, err := kregress(t, path, "cell", "--job", jobFile, "--index", "0")
	if err != nil || !strings.Contains(out, "already has a result (ok") || !strings.Contains(out, "not measured again") {
		t.Fatalf("retried cell: %v\n%s", err, out)
	}
	s, err = store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetRun(ctx, run.ID); got.Status != results.RunRunning {
		t.Fatalf("after the retried task the run is %s; cell 2 never ran", got.Status)
	}
	if err := s.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "b", Repetition: 1, Seq: 2, Status: results.StatusOK}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Cell 2's task retried: it measures nothing and, its run's last
	// cell stored, completes the run (pipeline.CellJob.RunTask).
	if out, err := kregress(t, path, "cell", "--job", jobFile, "--index", "1"); err != nil || !strings.Contains(out, "not measured again") {
		t.Fatalf("retried cell 2: %v\n%s", err, out)
	}
	if s, err = store.OpenSQLite(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _ := s.GetRun(ctx, run.ID); got.Status != results.RunComplete || got.Error != "" {
		t.Fatalf("with both cells stored the run is %s %q", got.Status, got.Error)
	}
	if out := mustRun(t, path, "results", "show", "1"); !strings.Contains(out, "cells:    1 ok") || !strings.Contains(out, "history: 1 other attempt(s) kept, not counted (a retried task or a resumed run): cell 1 ok") {
		t.Fatalf("show of a run with a cell stored twice:\n%s", out)
	}
}

// An import that fails part way stores nothing: no run claiming the
// file's "complete" over half its results.
func TestImportFailingPartWayStoresNothing(t *testing.T) {
	store := seed(t)
	file := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, store, "results", "export", "1", "-o", file)
	data, _ := os.ReadFile(file)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	// Result 4 of 12 carries a metric twice: the store refuses that row,
	// as it would on a full disk.
	rs := doc["results"].([]any)
	r4 := rs[3].(map[string]any)
	ms := r4["metrics"].([]any)
	r4["metrics"] = append(ms, ms[0])
	bad, _ := json.Marshal(doc)
	os.WriteFile(file, bad, 0o644)
	other := filepath.Join(t.TempDir(), "other.db")
	out, err := kregress(t, other, "results", "import", file)
	if exitCodeOf(err) != 1 || !strings.Contains(out, "nothing of it was stored") || !strings.Contains(out, "result 4 of 12") {
		t.Fatalf("import failing at result 4: exit %d\n%s", exitCodeOf(err), out)
	}
	if out := mustRun(t, other, "results", "list"); strings.Contains(out, "rstat-relock") {
		t.Fatalf("a failed import left a run:\n%s", out)
	}
}

// snapshot is a store file's bytes, mtime and the names in its directory.
type snapshot struct {
	data  []byte
	mtime time.Time
	names string
}

func snap(t *testing.T, path string) snapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return snapshot{data, st.ModTime(), strings.Join(names, " ")}
}

func (a snapshot) same(b snapshot) bool {
	return bytes.Equal(a.data, b.data) && a.mtime.Equal(b.mtime) && a.names == b.names
}

// The commands that only read open the store read-only: on a 0444 file
// in a 0555 directory they work, and the store's bytes, mtime and
// directory stay as they were (no -wal, -shm, migration or stale-run
// marking). Tests run as root, where the permission bits stop nothing:
// what is checked is that nothing was written.
func TestReadOnlyCommandsWriteNothing(t *testing.T) {
	store := seed(t)
	// Run 1's kregress was killed: recorded running, process gone.
	markRunning(t, store, 1, 1<<30, hostname(t))
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(store, old, old)
	dir := filepath.Dir(store)
	os.Chmod(store, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := snap(t, store)
	out := mustRun(t, store, "results", "list")
	if !strings.Contains(out, "running (process gone)") {
		t.Errorf("list does not say run 1's process is gone:\n%s", out)
	}
	for _, args := range [][]string{
		{"runs"}, {"results", "show", "1"}, {"results", "show", "2", "--config"}, {"results", "export", "2"},
		{"results", "export", "2", "-f", "benchfmt"}, {"diff", "2"}, {"diff", "1", "2"}, {"diff", "2", "2", "--against", store},
		{"baseline", "list"},
	} {
		mustRun(t, store, args...)
	}
	if after := snap(t, store); !before.same(after) {
		t.Fatalf("read-only commands changed the store: directory %q -> %q, bytes equal %v, mtime %v -> %v",
			before.names, after.names, bytes.Equal(before.data, after.data), before.mtime, after.mtime)
	}
	// A command that writes marks the dead run interrupted.
	os.Chmod(dir, 0o755)
	os.Chmod(store, 0o644)
	mustRun(t, store, "results", "prune", "--keep", "100")
	if out := mustRun(t, store, "results", "list"); !strings.Contains(out, "interrupted") {
		t.Errorf("a writing command did not mark the dead run:\n%s", out)
	}
}

// markRunning records run id of store as running, owned by kregress
// pid on host: a pid that cannot exist is a killed run, os.Getpid()
// a live one.
func markRunning(t *testing.T, store string, id int64, pid int, host string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE runs SET status = 'running', pid = ?, hostname = ? WHERE id = ?`, pid, host, id); err != nil {
		t.Fatal(err)
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Someone else's SQLite database given as the store is refused by
// reading and writing commands alike, and left exactly as it was.
func TestForeignSQLiteStoreUntouched(t *testing.T) {
	store := seed(t)
	file := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, store, "results", "export", "1", "-o", file)
	foreign := filepath.Join(t.TempDir(), "foreign.db")
	db, _ := sql.Open("sqlite", "file:"+foreign)
	if _, err := db.Exec(`CREATE TABLE runs (id INTEGER PRIMARY KEY, owner TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Exec(`INSERT INTO runs (owner) VALUES ('someone')`)
	db.Close()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(foreign, old, old)
	before := snap(t, foreign)
	for _, args := range [][]string{{"results", "list"}, {"diff"}, {"results", "import", file}, {"results", "prune", "--keep", "1"}} {
		out, err := kregress(t, foreign, args...)
		if err == nil || !strings.Contains(out, "not a kregress store") {
			t.Errorf("%v on a foreign SQLite database: %v\n%s", args, err, out)
		}
	}
	if after := snap(t, foreign); !before.same(after) {
		t.Fatalf("the foreign database changed: %q -> %q", before.names, after.names)
	}
	if before.data[18] != 1 {
		t.Fatal("the foreign database is in WAL mode")
	}
}

// Store names as people type them: a scheme in capitals or after a
// space is PostgreSQL, another scheme is refused, a redacted password
// is refused, and no message ever carries the password.
func TestStoreSpellings(t *testing.T) {
	store := seed(t)
	// A real export: import checks its files before it opens the store.
	exported := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, store, "results", "export", "1", "-o", exported)
	for _, c := range []struct {
		spec string
		code int
		want string
	}{
		{"POSTGRES://ci:s3cret@127.0.0.1:1/k?sslmode=disable&connect_timeout=2", 1, "127.0.0.1:1"},
		{" postgres://ci:s3cret@127.0.0.1:1/k?sslmode=disable&connect_timeout=2", 1, "127.0.0.1:1"},
		{"PostgreSQL://ci:s3cret@127.0.0.1:1/k?sslmode=disable&sslpassword=s3cret&connect_timeout=2", 1, "127.0.0.1:1"},
		{"pgsql://ci:s3cret@127.0.0.1:1/k", 2, "unknown scheme"},
		{"mysql://ci:s3cret@db/k", 2, "unknown scheme"},
		{"postgres://ci:xxx@127.0.0.1:1/k?sslmode=disable", 2, "supply the real one"},
		{"host=127.0.0.1 port=1 user=ci password=s3cret sslpassword=s3cret sslmode=disable connect_timeout=2", 1, "127.0.0.1"},
	} {
		for _, args := range [][]string{{"results", "list", "--store", c.spec}, {"results", "import", exported, "--store", c.spec}} {
			out, err := kregress(t, store, args...)
			if exitCodeOf(err) != c.code || !strings.Contains(out, c.want) {
				t.Errorf("%q: exit %d, want %d with %q:\n%s", args, exitCodeOf(err), c.code, c.want, out)
			}
			if strings.Contains(out, "s3cret") {
				t.Errorf("%q printed the password:\n%s", args, out)
			}
			if strings.Contains(out, "no results store at") {
				t.Errorf("%q was taken for a SQLite path:\n%s", args, out)
			}
		}
	}
	// Taken for a SQLite path, "pgsql://..." would have made a directory
	// "pgsql:" here (the commands run in this directory).
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ":") {
			t.Fatalf("a directory named after a DSN's scheme was created: %s", e.Name())
		}
	}
}

// `results show --config` of a run stored in PostgreSQL does not hand
// back the redaction marker as the password: the store comes without a
// password, and both the output and stderr say it must be supplied.
func TestShowConfigOfPostgresRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := "experiment: e\nstore: postgres://ci:xxx@db.example:5432/kregress?sslmode=disable\nrepetitions: 5\n"
	r := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunComplete, Config: cfg}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	s.Close()
	cmd := exec.Command(binary(t), "results", "show", "1", "--config")
	cmd.Env = append(os.Environ(), "KREGRESS_STORE="+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	out := stdout.String()
	if strings.Contains(out, "xxx") || !strings.Contains(out, "store: postgres://ci@db.example:5432/kregress?sslmode=disable\n") ||
		!strings.Contains(out, "# The store's password was redacted") || !strings.Contains(out, "repetitions: 5\n") {
		t.Fatalf("show --config:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "was redacted") || !strings.Contains(stderr.String(), "PGPASSWORD") {
		t.Fatalf("show --config says nothing of the password on stderr: %q", stderr.String())
	}
}

// Outputs written with -o get the mode os.Create gives (0644 under
// umask 022), keep an existing file's mode, and a directory target is a
// usage error (exit 2).
func TestOutputFiles(t *testing.T) {
	store := seed(t)
	dir := t.TempDir()
	umask := func(args ...string) (string, error) {
		cmd := exec.Command("sh", append([]string{"-c", `umask 022; exec "$@"`, "sh", binary(t)}, args...)...)
		cmd.Env = append(os.Environ(), "KREGRESS_STORE="+store)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for name, args := range map[string][]string{
		"report.html": {"diff", "1", "-f", "html", "-o", filepath.Join(dir, "report.html")},
		"run1.json":   {"results", "export", "1", "-o", filepath.Join(dir, "run1.json")},
	} {
		if out, err := umask(args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if st, _ := os.Stat(filepath.Join(dir, name)); st.Mode().Perm() != 0o644 {
			t.Errorf("%s is %v, want 0644", name, st.Mode().Perm())
		}
	}
	private := filepath.Join(dir, "private.json")
	os.WriteFile(private, []byte("old"), 0o600)
	if out, err := umask("results", "export", "1", "-o", private); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, _ := os.Stat(private); st.Mode().Perm() != 0o600 {
		t.Errorf("an existing 0600 file became %v", st.Mode().Perm())
	}
	for _, args := range [][]string{{"diff", "1", "-o", dir}, {"results", "export", "1", "-o", dir}} {
		if out, err := kregress(t, store, args...); exitCodeOf(err) != 2 || !strings.Contains(out, "is a directory") {
			t.Errorf("%v: exit %d\n%s", args, exitCodeOf(err), out)
		}
	}
	// nightly's outputs go through the same writer.
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	html := filepath.Join(dir, "nightly.html")
	if err := flagkit.WriteFiles(io.Discard, []flagkit.Output{{Format: "html", Path: html}}, format.NightWriter(nil)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(html); st.Mode().Perm() != 0o644 {
		t.Errorf("nightly's HTML is %v, want 0644", st.Mode().Perm())
	}
	if err := flagkit.WriteFiles(io.Discard, []flagkit.Output{{Format: "html", Path: dir}}, format.NightWriter(nil)); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Errorf("nightly --html DIR: %v (exit %d)", err, verdict.ExitOf(err))
	}
}

// Argument mistakes are usage errors (exit 2), a missing run too.
func TestUsageErrorsExit2(t *testing.T) {
	store := seed(t)
	for _, args := range [][]string{
		{"diff", "abc"}, {"diff", "abc", "1"}, {"diff", "1/stock"},
		{"results", "prune", "abc"}, {"results", "prune"}, {"results", "prune", "--keep", "1", "2"},
		{"results", "show", "abc"},
	} {
		if out, err := kregress(t, store, args...); exitCodeOf(err) != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, exitCodeOf(err), out)
		}
	}
	if out, err := kregress(t, store, "results", "prune", "99"); exitCodeOf(err) != 2 {
		t.Errorf("prune of a missing run: exit %d, want 2\n%s", exitCodeOf(err), out)
	}
}

// `results migrate` upgrades an older store, which read-only commands
// refuse to read (they never migrate).
func TestResultsMigrate(t *testing.T) {
	store := seed(t)
	db, _ := sql.Open("sqlite", "file:"+store)
	// As kregress before migration 7 left it.
	for _, stmt := range []string{`DROP INDEX results_cell`, `ALTER TABLE results DROP COLUMN superseded`, `UPDATE kregress_schema SET version = 6`} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	out, err := kregress(t, store, "results", "list")
	if err == nil || !strings.Contains(out, "kregress results migrate") {
		t.Fatalf("list of a schema-6 store: %v\n%s", err, out)
	}
	mustRun(t, store, "results", "migrate")
	if out := mustRun(t, store, "results", "list"); !strings.Contains(out, "12/12 ok") {
		t.Fatalf("after migrate:\n%s", out)
	}
}
