package pipeline

import (
	"context"
	"fmt"
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

// BuildOnly is `kregress build`: after the preflight checks, the guest
// image and every variant's kernel of sel, built or found cached, and
// nothing booted. It hands each artifact on as it is ready (image, then
// built per variant), so a long build shows its progress.
func BuildOnly(ctx context.Context, cfg *config.Config, sel *variants.Selection, rep progress.Reporter, image func(path string), built func(BuiltKernel)) error {
	plans, err := Plan(ctx, cfg, sel)
	if err != nil {
		return err
	}
	if err := Preflight(ctx, cfg, sel.Family, plans, rep); err != nil {
		return err
	}
	img, err := initramfs.Build(initramfs.Spec{Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir})
	if err != nil {
		return err
	}
	image(img.Path)
	b := builder(cfg, rep)
	for _, p := range plans {
		t0 := time.Now()
		k, err := b.Build(ctx, p.Request)
		if err != nil {
			return fmt.Errorf("variant %s: %w", p.Variant.Name, err)
		}
		built(BuiltKernel{Variant: p.Variant.Name, BzImage: k.BzImage, Cached: k.Cached, Took: time.Since(t0)})
	}
	return nil
}
