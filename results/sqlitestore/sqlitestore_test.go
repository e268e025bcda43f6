package sqlitestore

import (
	"context"
	"time"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/sqlstore"
	"github.com/kregress/kregress/results/sqlstore/storetest"
)

func open(spec string) (*sqlstore.Store, error) { return Open(spec) }

func TestMain(m *testing.M) {
	storetest.WriterMain(open)
	os.Exit(m.Run())
}

func TestStore(t *testing.T) {
	storetest.Run(t, open, filepath.Join(t.TempDir(), "kregress.db"))
}

func TestReadOnly(t *testing.T) {
	storetest.RunReadOnly(t, open, OpenReadOnly, filepath.Join(t.TempDir(), "kregress.db"))
}

func TestForeignFileIsRefusedUntouched(t *testing.T) {
	for name, content := range map[string][]byte{
		"text":           []byte("this is not a database, it is someone's notes\n"),
		"corrupt sqlite": append([]byte("SQLite format 3\x00"), make([]byte, 80)...),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "notes.db")
			os.WriteFile(path, content, 0o644)
			_, err := Open(path)
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
	old, err := sqlstore.OpenAt(Dialect, "file:"+path+"?_pragma=foreign_keys(1)", path, 3)
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
	if _, err := db.Exec(`INSERT INTO metrics (result_id, name, unit, direction, value) VALUES (?, 'reads_per_sec', 'reads/s', ?, 1)`, resID, string(report.HigherIsBetter)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("migrating schema 3: %v", err)
	}
	defer s.Close()
	var v int
	if err := s.DB().QueryRow(`SELECT version FROM kregress_schema`).Scan(&v); err != nil || v != sqlstore.SchemaVersion {
		t.Fatalf("schema version %d after open, want %d (%v)", v, sqlstore.SchemaVersion, err)
	}
	rs, err := s.Results(ctx, run.ID)
	if err != nil || len(rs) != 1 || rs[0].Metrics[0].Name != "reads_per_sec" {
		t.Fatalf("old results after migration: %+v %v", rs, err)
	}
	if err := s.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkAccepted, Who: "t", Reason: "old baseline"}); err != nil {
		t.Fatalf("marking an old run: %v", err)
	}
}
