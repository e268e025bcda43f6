package doctor

import (
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
)

// SettingsFor is what doctor checks for cfg: the configuration keys a
// run reads, and the kernel source's tarball when it is Debian's.
func SettingsFor(cfg *config.Config) Settings {
	return Settings{QEMU: cfg.VM.QEMU, Accel: cfg.VM.Accel, Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir,
		StoreSpec: cfg.StoreSpec(), KernelSource: cfg.Kernel.Source, DebianPackage: cfg.Kernel.DebianPackage, GitTree: cfg.Kernel.GitTree,
		SourceTarball: kernel.DebianSource{Package: cfg.Kernel.DebianPackage}.Tarball()}
}
