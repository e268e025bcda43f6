package store

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"
)

// WriteSchemaVersion names the store and the version this code writes.
func TestWriteSchemaVersion(t *testing.T) {
	s, err := OpenFor(t.Context(), filepath.Join(t.TempDir(), "kregress.db"), Recording, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b bytes.Buffer
	if err := WriteSchemaVersion(&b, s); err != nil || b.String() != s.Where()+": schema version "+strconv.Itoa(SchemaVersion)+"\n" || SchemaVersion == 0 {
		t.Fatalf("%q, %v", b.String(), err)
	}
}
