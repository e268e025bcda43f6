package kernel

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The identity is remembered per file, and a changed tarball (new bytes,
// size, modification time) is hashed again: a remembered identity never
// outlives the file's contents.
func TestDebianIdentityRemembersOnlyTheSameFile(t *testing.T) {
	dir := t.TempDir()
	src := DebianSource{Package: "linux-source-0.0-kregress-test", SrcDir: dir}
	tarball := filepath.Join(dir, src.Package+".tar.xz")
	os.WriteFile(tarball, []byte("one"), 0o644)
	a, err := src.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := src.Identity(context.Background()); again != a {
		t.Fatalf("same file: %s then %s", a, again)
	}
	os.WriteFile(tarball, []byte("two!"), 0o644)
	os.Chtimes(tarball, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	b, err := src.Identity(context.Background())
	if err != nil || b == a {
		t.Fatalf("changed file kept its identity %s (%v)", b, err)
	}
}
