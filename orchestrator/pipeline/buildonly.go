package pipeline

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// BuiltKernel is one variant's kernel as BuildOnly built it or found it
// in the cache.
type BuiltKernel struct {
	Variant string
	BzImage string
	Cached  bool
	Took    time.Duration
}

// Line is k as `kregress build` prints it: variant, bzImage, whether it
// came from the cache, and the seconds it took, tab-separated.
func (k BuiltKernel) Line() string {
	return fmt.Sprintf("%s\t%s\tcached=%v\t%.1fs", k.Variant, k.BzImage, k.Cached, k.Took.Seconds())
}

// BuildOnly is `kregress build`: after the preflight checks, the guest
// image and every variant's kernel of sel, built or found cached, and
// nothing booted. It prints each artifact on out as it is ready ("image"
// and its path, then a kernel's Line per variant), so a long build shows
// its progress.
func BuildOnly(ctx context.Context, cfg *config.Config, sel *variants.Selection, rep progress.Reporter, out io.Writer) error {
	plans, err := Plan(ctx, cfg, sel)
	if err != nil {
		return err
	}
	if err := Preflight(ctx, cfg, sel.Family, plans, rep); err != nil {
		return err
	}
	packed, err := benchmarkFiles(ctx, cfg)
	if err != nil {
		return err
	}
	img, err := initramfs.Build(initramfs.Spec{Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir, Extra: packed})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "image\t%s\n", img.Path)
	b := builder(cfg, rep)
	for _, p := range plans {
		t0 := time.Now()
		k, err := b.Build(ctx, p.Request)
		if err != nil {
			return fmt.Errorf("variant %s: %w", p.Variant.Name, err)
		}
		fmt.Fprintln(out, BuiltKernel{Variant: p.Variant.Name, BzImage: k.BzImage, Cached: k.Cached, Took: time.Since(t0)}.Line())
	}
	return nil
}
