package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// Runs stored before guest text was escaped at decode (or rows written
// by another tool) can hold raw control characters: a lock holder that
// colours the terminal, a kernel report title that sets its window
// title, a metric name that clears the screen, a bidi override. Every
// renderer shows them escaped, because the store escapes what it reads;
// an export of such a run, read back by diff, is escaped too.
func TestRawControlCharactersInAStoredRunNeverReachTheTerminal(t *testing.T) {
	store := seed(t)
	db, err := sql.Open("sqlite", "file:"+store)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE runs SET error = 'note \x1b]0;owned\x07 here' WHERE id = 1",
		"UPDATE results SET irqsoff_holder = '\x1b[31mred_holder\u202e' WHERE run_id = 1",
		"UPDATE results SET status = 'crashed', error = 'panic \x1b[2J cleared' WHERE run_id = 1 AND seq = 2",
		"UPDATE metrics SET name = 'reads\x1b[1m_per_sec' WHERE name = 'reads_per_sec'",
		"INSERT INTO findings (result_id, ord, kind, title, count, excerpt) SELECT id, 0, 'warning', 'WARNING in \x1b[5mblink\u009b', 1, 'line1\n\x1b[0mline2' FROM results WHERE run_id = 1 AND seq = 4",
		"INSERT INTO selftests (result_id, ord, program, name, outcome, detail) SELECT id, 0, 'test_core', 'test_\x1b[8mhidden', 'fail', 'd\x07' FROM results WHERE run_id = 1 AND seq = 4",
		"INSERT INTO selftests (result_id, ord, program, name, outcome, detail) SELECT id, 0, 'test_core', 'test_\x1b[8mhidden', 'pass', '' FROM results WHERE run_id = 1 AND seq = 3",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	exported := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, store, "results", "export", "1", "-o", exported)
	for _, args := range [][]string{
		{"results", "list"}, {"runs"}, {"results", "show", "1"},
		{"diff", "1"}, {"diff", "1", "-f", "markdown"}, {"diff", "1", "-f", "csv"}, {"diff", "1", "-f", "lkp"}, {"diff", "1", "-f", "html"},
		{"diff", "1", "2"}, {"diff", exported + "#stock", exported + "#per-cpu-relock"},
	} {
		out, _ := kregress(t, store, args...) // a crashed cell may make diff exit non-zero
		if i := strings.IndexFunc(out, func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b || r == 0x202e }); i >= 0 {
			t.Errorf("%v printed a raw control character at %d: %q", args, i, out[max(0, i-40):min(len(out), i+40)])
		}
		if !strings.Contains(out, `\x1b`) && args[0] != "runs" && !(args[0] == "results" && args[1] == "list") {
			t.Errorf("%v: the escaped text is not shown at all:\n%s", args, out)
		}
	}
	if out := mustRun(t, store, "results", "list"); !strings.Contains(out, `note \x1b]0;owned\x07 here`) {
		t.Errorf("list does not show the run's note escaped:\n%s", out)
	}
}
