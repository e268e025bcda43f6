// Package images holds the guest side of the build: kernel config
// fragments (kconfig/*.config, embedded) and, in initramfs, the image
// builder.
package images

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

//go:embed kconfig/*.config
var fragments embed.FS

// Fragment returns a config fragment by name: a built-in one from
// images/kconfig (e.g. "guest.config"), or a file path.
func Fragment(name string) ([]byte, error) {
	if data, err := fragments.ReadFile(path.Join("kconfig", name)); err == nil {
		return data, nil
	}
	if strings.ContainsRune(name, '/') {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("config fragment %s: %w", name, err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("config fragment %q: not built in (have: %s) and not a path", name, strings.Join(BuiltinFragments(), ", "))
}

// BuiltinFragments lists the embedded fragments.
func BuiltinFragments() []string {
	entries, _ := fs.ReadDir(fragments, "kconfig")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
