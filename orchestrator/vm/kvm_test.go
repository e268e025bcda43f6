package vm

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestKVMUnusableReasons(t *testing.T) {
	missing := func() error { return &fs.PathError{Op: "open", Path: "/dev/kvm", Err: fs.ErrNotExist} }
	opens := func() error { return nil }
	pvm := func(p string) bool { return p == "/sys/module/kvm_pvm" }
	none := func(string) bool { return false }
	for _, c := range []struct {
		name   string
		open   func() error
		exists func(string) bool
		want   string // "" when KVM may work
	}{
		{"no /dev/kvm, kvm_pvm loaded (this project's CI host)", missing, pvm, "kvm_pvm"},
		{"no /dev/kvm", missing, none, "/dev/kvm unusable"},
		{"/dev/kvm is kvm_pvm", opens, pvm, "is kvm_pvm"},
		{"permission denied", func() error { return errors.New("permission denied") }, none, "permission denied"},
		{"real KVM", opens, none, ""},
	} {
		got := kvmUnusable(c.open, c.exists)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
