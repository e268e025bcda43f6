package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
)

// A store that does not exist is refused by name, never created, by the
// openers for reading; OpenMarkingStale creates it.
func TestOpenExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	if _, err := OpenExistingReadOnly(path); !usage.Is(err) || !strings.Contains(err.Error(), "no results store at "+path) {
		t.Fatalf("a missing store: %v", err)
	}
	if _, err := MustExist(path); !usage.Is(err) {
		t.Fatalf("MustExist of a missing store: %v", err)
	}
	s, n, err := OpenMarkingStale(t.Context(), path)
	if err != nil || n != 0 {
		t.Fatalf("OpenMarkingStale: %d, %v", n, err)
	}
	s.Close()
	ro, err := OpenExistingReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
}
