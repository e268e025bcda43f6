package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/images"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/patches"
)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func newBuild() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "build",
		Short: "build (or find cached) the kernels and the guest image of an experiment, without booting",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			man, err := patches.Load()
			if err != nil {
				return err
			}
			fam, err := man.Family(cfg.Family)
			if err != nil {
				return err
			}
			src, err := pipeline.Source(cfg.Kernel)
			if err != nil {
				return err
			}
			var frags []kernel.Fragment
			for _, f := range cfg.Kernel.Fragments {
				data, err := images.Fragment(f)
				if err != nil {
					return err
				}
				frags = append(frags, kernel.Fragment{Name: f, Data: data})
			}
			rep := reporter()
			ctx, cancel := signalContext()
			defer cancel()
			img, err := initramfs.Build(initramfs.Spec{Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir})
			if err != nil {
				return err
			}
			fmt.Printf("image\t%s\n", img.Path)
			b := &kernel.Builder{CacheDir: cfg.CacheDir, Jobs: cfg.Kernel.Jobs, CCache: cfg.Kernel.CCache, Progress: func(m string) { rep("%s", m) }}
			names := cfg.Variants
			if len(names) == 0 {
				names = fam.VariantNames()
			}
			for _, n := range names {
				v, err := fam.Variant(n)
				if err != nil {
					return err
				}
				t0 := time.Now()
				k, err := b.Build(ctx, kernel.Request{Source: src, Family: fam.Name, Variant: v, BaseConfig: cfg.Kernel.BaseConfig, Fragments: frags})
				if err != nil {
					return fmt.Errorf("variant %s: %w", n, err)
				}
				fmt.Printf("%s\t%s\tcached=%v\t%.1fs\n", n, k.BzImage, k.Cached, time.Since(t0).Seconds())
			}
			return nil
		},
	}
	cmd.Flags().StringSlice("variants", nil, "variants to build (default: all of the family)")
	cmd.Flags().Int("kernel.jobs", 0, "make -j")
	return cmd
}

func newConfig() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "print the resolved configuration (defaults + file + env + flags) and every key",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			fmt.Print(cfg.YAML())
			fmt.Println("\n# keys (environment: KREGRESS_<KEY with dots as underscores>, upper case):")
			for _, k := range config.Keys() {
				fmt.Println("#  ", k)
			}
			return nil
		},
	}
}
