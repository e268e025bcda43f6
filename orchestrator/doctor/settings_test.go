package doctor

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
)

// The settings carry the configuration's keys, the Debian tarball named
// after its package.
func TestSettingsFor(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := SettingsFor(cfg)
	if s.QEMU != cfg.VM.QEMU || s.CacheDir != cfg.CacheDir || s.StoreSpec != cfg.StoreSpec() || s.KernelSource != cfg.Kernel.Source ||
		!strings.Contains(s.SourceTarball, cfg.Kernel.DebianPackage) {
		t.Fatalf("SettingsFor: %+v", s)
	}
}
