package contention

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Parse reads a trace the kernel wrote, but bounded and checked: any
// text gives waits that are never negative, or an error.
func FuzzParse(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join("testdata", "trace-6.12.txt"))
	f.Add(string(seed))
	f.Add("  sh-1 [000] .....  1.000001: contention_begin: ff (flags=SPIN)\n")
	f.Fuzz(func(t *testing.T, text string) {
		w, err := Parse(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, waits := range w.US {
			for _, us := range waits {
				if us < 0 {
					t.Fatalf("negative wait %v", us)
				}
			}
		}
	})
}
