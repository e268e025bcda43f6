package sqlitestore

import (
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
