package config_test

import (
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
)

// fio-ram's program runs only in its guest, so what its kernel lacks shows
// first as a failed cell after a full build. fio stops before its first
// job without System V shared memory (its job table is a shmget segment),
// and the experiment's device is brd's /dev/ram0: the kernel the
// experiment names must ask for both.
func TestFioRamKernelHasWhatFioNeeds(t *testing.T) {
	cfg, _, err := config.Load("fio-ram", nil)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]string{}
	for _, name := range cfg.Kernel.Fragments {
		data, err := kernel.FragmentData(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range kernel.ParseConfig(data) {
			asked[o.Name] = o.Value
		}
	}
	for _, opt := range []string{"CONFIG_SYSVIPC", "CONFIG_BLK_DEV_RAM"} {
		if asked[opt] != "y" {
			t.Errorf("fio-ram's fragments %v set %s to %q, want y", cfg.Kernel.Fragments, opt, asked[opt])
		}
	}
}
