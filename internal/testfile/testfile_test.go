package testfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteMakesParentsAndReadReturnsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "file")
	Write(t, path, "text")
	if got := Read(t, path); got != "text" {
		t.Fatalf("Read = %q, want %q", got, "text")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o600 != 0o600 {
		t.Fatalf("mode %v, want the owner's read and write bits", st.Mode())
	}
}
