package logread

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// write is a console log holding data.
func write(t *testing.T, data string) string {
	t.Helper()
	return testfile.Write(t, filepath.Join(t.TempDir(), "console.log"), data)
}

func TestTail(t *testing.T) {
	path := write(t, "0123456789")
	for n, want := range map[int64]string{4: "6789", 10: "0123456789", 64: "0123456789"} {
		if got, err := Tail(path, n); err != nil || string(got) != want {
			t.Errorf("Tail(%d) = %q, %v; want %q", n, got, err, want)
		}
	}
	if _, err := Tail(filepath.Join(t.TempDir(), "none"), 4); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestHeadTail(t *testing.T) {
	small := write(t, "short log\n")
	if got, err := HeadTail(small, 64); err != nil || string(got) != "short log\n" {
		t.Errorf("a small log: %q, %v", got, err)
	}
	big := write(t, "HEAD"+strings.Repeat("x", 100)+"TAIL")
	got, err := HeadTail(big, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := "HEAD\n[kregress: 100 bytes of " + big + " skipped]\nTAIL"
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("a flooded log: %q, want %q", got, want)
	}
}
