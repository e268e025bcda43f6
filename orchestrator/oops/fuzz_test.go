package oops

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/safetext"
)

// FuzzParse: any console text parses without panic into at most
// maxFindings findings, each counted at least once, with a title free of
// control characters and an excerpt free of all but newlines and tabs;
// parsing is deterministic, and merging a log's findings with themselves
// changes nothing.
func FuzzParse(f *testing.F) {
	f.Add([]byte(warnLog))
	f.Add([]byte("Kernel panic - not syncing: \x1b[2J\n"))
	f.Add([]byte("BUG: KASAN: slab-use-after-free in lru_add_drain_cpu+0x3a/0x120\nRead of size 8\n"))
	f.Add([]byte("------------[ cut here ]------------\nWARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60\nRIP: 0010:memory_stat_show+0x1f/0x60\nKernel panic - not syncing: kernel: panic_on_warn set ...\n---[ end Kernel panic - not syncing: kernel: panic_on_warn set ... ]---\n"))
	f.Add([]byte("INFO: task kworker/u4:2:45 blocked for more than 120 seconds.\nCall Trace:\n <TASK>\n __schedule+0x3c4/0xc40\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		fs := Parse(log)
		if len(fs) > maxFindings || len(fs) > strings.Count(string(log), "\n")+1 {
			t.Fatalf("%d findings", len(fs))
		}
		for _, f := range fs {
			if f.Count < 1 || f.Title == "" || !safetext.Clean(f.Title) || safetext.Text(f.Excerpt) != f.Excerpt {
				t.Fatalf("finding %q %q %q", f.Kind, f.Title, f.Excerpt)
			}
			if strings.Count(f.Excerpt, "\n") >= maxExcerptLines+3 {
				t.Fatalf("excerpt of %d lines", strings.Count(f.Excerpt, "\n")+1)
			}
		}
		again := Parse(log)
		merged := Merge(fs, again)
		if len(merged) != len(fs) {
			t.Fatalf("merge of a log with itself: %d findings, want %d", len(merged), len(fs))
		}
		for i := range fs {
			if merged[i].Title != fs[i].Title || merged[i].Count != fs[i].Count || again[i].Title != fs[i].Title {
				t.Fatalf("parse is not deterministic or merge changed a finding: %+v / %+v", fs[i], merged[i])
			}
		}
	})
}
