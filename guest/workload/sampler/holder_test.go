package sampler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/probe"
)

// An experiment's holder is the share of windows whose worst section its
// code held; on a kernel with no function named like it, the metric is
// unavailable saying so rather than 0.
func TestAddHolderShare(t *testing.T) {
	proc := t.TempDir()
	os.WriteFile(filepath.Join(proc, "kallsyms"), []byte("ffffffff81000000 T rcu_core\nffffffff81000100 t memory_stat_show\n"), 0o644)
	kern := &probe.Kernel{Proc: proc}
	irq := &agentproto.Irqsoff{Windows: []agentproto.Section{
		{LatencyUS: 5, StartedAt: "rcu_core+0x10/0x40"},
		{LatencyUS: 9, Stack: []string{"_raw_spin_lock_irq", "memory_stat_show+0x1c/0x80"}},
		{LatencyUS: 2, EndedAt: "rcu_core+0x30/0x40"},
		{LatencyUS: 3, StartedAt: "do_idle"},
	}}
	doc := &agentproto.Document{Irqsoff: irq}
	AddHolderShare(doc, kern, "rcu_core")
	if len(doc.Metrics) != 1 || doc.Metrics[0].Name != "irqsoff_holder_windows_pct" || doc.Metrics[0].Value != 50 || doc.Metrics[0].Direction != "lower" {
		t.Fatalf("metrics %+v", doc.Metrics)
	}
	doc = &agentproto.Document{Irqsoff: irq}
	AddHolderShare(doc, kern, "blk_mq_")
	if len(doc.Metrics) != 0 || len(doc.Unavailable) != 1 || !strings.Contains(doc.Unavailable[0].Reason, "no kernel function named *blk_mq_*") {
		t.Fatalf("no such function: %+v %+v", doc.Metrics, doc.Unavailable)
	}
	for _, bad := range []string{"", "a b", "x/y", strings.Repeat("a", 65)} {
		if CheckHolder(bad) == nil {
			t.Errorf("CheckHolder(%q) accepted", bad)
		}
	}
}
