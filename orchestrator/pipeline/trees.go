package pipeline

import (
	"context"
	"fmt"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
)

// checkTrees refuses a source that is not a kernel tree
// (kernel.CheckTree) before the checks that read it: without trace
// headers the primary check would see no tracepoint missing, and a tree
// without a kernel Makefile would fail only at make. It reads the
// sources the other checks unpack anyway - git trees, patched or
// expectation-checked variants, every source when the primary metric
// needs a tracepoint - so a tarball baseline the dry run need not
// unpack stays packed (its build checks for the Makefile). Part of
// Preflight.
func checkTrees(ctx context.Context, b *kernel.Builder, cfg *config.Config, plans []BuildPlan) error {
	primaryNeeds := anyNeeds(cfg.Workload, cfg.JudgedPrimary())
	seen := map[string]bool{}
	for _, p := range plans {
		_, git := p.Request.Source.(kernel.GitSource)
		read := primaryNeeds || git || len(p.Request.Patches()) > 0 || len(p.Request.Variant.Expect) > 0
		name := p.Request.Source.String()
		if !read || seen[name] {
			continue
		}
		seen[name] = true
		dir, _, err := b.Pristine(ctx, p.Request.Source)
		if err != nil {
			return fmt.Errorf("variant %s: unpacking its source: %w", p.Variant.Name, err)
		}
		if err := kernel.CheckTree(dir, name); err != nil {
			return err
		}
	}
	return nil
}
