package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/internal/usage"
)

// What a report must never replace is refused, naming the path: "-", a
// device, a directory, a results store, a path in a missing directory.
// A symbolic link resolves to its target.
func TestTargetRefuses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kregress.db")
	os.WriteFile(db, []byte(SQLiteMagic+"rest of a store"), 0o644)
	report := filepath.Join(dir, "report.md")
	os.WriteFile(report, []byte("old"), 0o644)
	link := filepath.Join(dir, "latest.md")
	if err := os.Symlink(report, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"-":                                    "is not a file",
		"/dev/null":                            "not a regular file",
		dir:                                    "is a directory",
		db:                                     "SQLite database",
		filepath.Join(dir, "missing", "r.xml"): "does not exist",
	} {
		if _, err := Target(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Target(%s): %v, want %q", path, err, want)
		}
	}
	if got, err := Target(link); err != nil || got != report {
		t.Errorf("Target(link) = %q, %v; want %q", got, err, report)
	}
	if got, err := Target(filepath.Join(dir, "new.md")); err != nil || got != filepath.Join(dir, "new.md") {
		t.Errorf("Target(a new file) = %q, %v", got, err)
	}
}

// Write goes through a symbolic link to its target, keeping the link;
// refusing a store is a usage error and leaves it untouched.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.md")
	os.WriteFile(report, []byte("old"), 0o640)
	link := filepath.Join(dir, "latest.md")
	if err := os.Symlink(report, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if data, _ := os.ReadFile(report); string(data) != "new" {
		t.Fatalf("the link's target holds %q, want the new report", data)
	}
	if fi, _ := os.Stat(report); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640 kept", fi.Mode().Perm())
	}
	db := filepath.Join(dir, "kregress.db")
	os.WriteFile(db, []byte(SQLiteMagic), 0o644)
	if err := Write(db, []byte("report")); !usage.Is(err) {
		t.Errorf("Write over a store: %v, want a usage error", err)
	}
	if data, _ := os.ReadFile(db); string(data) != SQLiteMagic {
		t.Error("the store was touched")
	}
}

// A failing write leaves the file as it was and no temporary file; a
// new file gets 0666 less the umask, as os.Create would.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	if err := WriteAtomic(path, func(f *os.File) error { f.WriteString("half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("after a failed write the file holds %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a temporary file was left: %v", entries)
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	fresh := filepath.Join(dir, "fresh.md")
	if err := WriteAtomic(fresh, func(f *os.File) error { _, err := f.WriteString("x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != os.FileMode(0o666&^mask) {
		t.Errorf("a new file's mode %v, want %v", fi.Mode().Perm(), os.FileMode(0o666&^mask))
	}
	if err := WriteAtomic(dir, func(*os.File) error { return nil }); !usage.Is(err) {
		t.Errorf("WriteAtomic(a directory): %v, want a usage error", err)
	}
}
