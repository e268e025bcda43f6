package testenv

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Guest is the System of a running guest.
type Guest struct{}

func (Guest) Mount(source, target, fstype string, flags uintptr, data string) error {
	return unix.Mount(source, target, fstype, flags, data)
}

func (Guest) Unmount(target string) error { return unix.Unmount(target, 0) }

func (Guest) Swapon(path string) error { return swapctl(unix.SYS_SWAPON, path) }

func (Guest) Swapoff(path string) error { return swapctl(unix.SYS_SWAPOFF, path) }

func (Guest) Run(name string, args ...string) error { return run(name, args...) }

// swapctl makes the swapon or swapoff system call, which x/sys/unix does
// not wrap.
func swapctl(nr uintptr, path string) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(nr, uintptr(unsafe.Pointer(p)), 0, 0); errno != 0 {
		return errno
	}
	return nil
}
