package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/patches"
)

// benchGitRefs prints what a second ref costs: a git repository made from
// the Debian tarball (gitfixture), its base commit built cold in a fresh
// cache without ccache, then the ref ten commits on (four .c files
// touched) built in the same workspace. The goal is a fraction of at
// most 0.10.
// fixture makes (once per machine, in the cache) the git repository made
// from the Debian tarball that the git-ref and bisect figures use.
func fixture(ctx context.Context, cfg *config.Config) (*gitfixture.Repo, error) {
	src, err := pipeline.Source(cfg.Kernel)
	if err != nil {
		return nil, err
	}
	b := &kernel.Builder{CacheDir: cfg.CacheDir}
	tree, id, err := b.Pristine(ctx, src)
	if err != nil {
		return nil, err
	}
	man, err := patches.Load()
	if err != nil {
		return nil, err
	}
	// The default experiment's family: its stock variant is the loop the
	// fixture's topic branch carries.
	fam := man.Families[cfg.Family]
	if fam == nil {
		return nil, fmt.Errorf("the git fixture needs the built-in family %q's stock variant; the manifest has no such family", cfg.Family)
	}
	stock, err := fam.Variant("stock")
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	repo, err := gitfixture.Make(ctx, tree, filepath.Join(cfg.CacheDir, "fixtures", strings.NewReplacer(":", "_", "=", "_").Replace(id)), stock.Files[0].Data)
	if err != nil {
		return nil, err
	}
	figure("git repository from the tarball (once per machine)", strconv.FormatFloat(time.Since(t0).Seconds(), 'f', 1, 64))
	return repo, nil
}

// benchGitRefs returns the cold build's seconds, for the bisect figures.
func benchGitRefs(ctx context.Context, cfg *config.Config, repo *gitfixture.Repo) (float64, error) {
	guest, _ := kernel.FragmentData("guest.config")
	tmp, err := os.MkdirTemp("", "kregress-bench-git-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	cold := &kernel.Builder{CacheDir: tmp, Jobs: cfg.Kernel.Jobs, Progress: logf}
	build := func(ref string) (float64, error) {
		t0 := time.Now()
		_, err := cold.Build(ctx, kernel.Request{Source: kernel.GitSource{Tree: repo.Path, Ref: ref}, Family: "fixture",
			Variant: &patches.Variant{Name: ref}, BaseConfig: cfg.Kernel.BaseConfig, Fragments: []kernel.Fragment{{Name: "guest.config", Data: guest}}})
		return time.Since(t0).Seconds(), err
	}
	base, err := build(repo.Base)
	if err != nil {
		return 0, err
	}
	figure("git ref base, cold (clone + checkout + make, no ccache)", strconv.FormatFloat(base, 'f', 1, 64))
	later, err := build(repo.Later)
	if err != nil {
		return 0, err
	}
	figure(fmt.Sprintf("git ref %d commits on (%d .c files), same workspace", 10, len(repo.LaterFiles)), strconv.FormatFloat(later, 'f', 1, 64))
	figure("  second ref / cold build (goal <= 0.10)", strconv.FormatFloat(later/base, 'f', 3, 64))
	return base, nil
}
