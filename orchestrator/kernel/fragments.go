package kernel

// The built-in config fragments (kconfig/*.config) live next to the build
// that merges them: kernel.fragments names them, the build checks every
// option they ask for after olddefconfig.

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

// FragmentData returns a config fragment's contents by name: a built-in one from
// orchestrator/kernel/kconfig (e.g. "guest.config"), or a file path.
func FragmentData(name string) ([]byte, error) {
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

// IsBuiltinFragment says whether name is an embedded fragment's.
func IsBuiltinFragment(name string) bool {
	_, err := fs.Stat(fragments, path.Join("kconfig", name))
	return err == nil && !strings.ContainsRune(name, '/')
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
