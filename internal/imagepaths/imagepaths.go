// Package imagepaths is the one list of the guest image's own paths: what
// kregress puts there itself (/init, /bin/kagent, busybox and its applets,
// the SSH keys under /etc) and what the kernel mounts (/dev, /proc, /sys).
// Nothing an experiment packs (a benchmark's copy, its program's loader
// and libraries, a kselftest's libraries) may land on one: the kernel's
// unpacker keeps the last entry of a name, so a file packed after the
// image's own would replace it.
package imagepaths

import (
	"path"
	"strings"
)

// reserved are the image's own directories and files.
var reserved = []string{"/bin", "/etc", "/dev", "/proc", "/sys", "/init"}

// List names them for a message.
var List = strings.Join(reserved, ", ")

// Reserved says whether p, an absolute path in the image, is the root,
// one of the image's own paths or below one ("/bin/kagent", "/etc",
// "/lib/../init"). A path that is not absolute is reserved too: it has
// no place in the image.
func Reserved(p string) bool {
	if !path.IsAbs(p) {
		return true
	}
	p = path.Clean(p)
	if p == "/" {
		return true
	}
	for _, r := range reserved {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
