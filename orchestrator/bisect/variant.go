package bisect

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kregress/kregress/patches"
)

// OnVariant makes every point of s carry the patches of the experiment's
// variant name on top of its own state, as the nightly measured that
// variant on each night's commit. The patches are copied into dir (a
// built-in family's patches have no file of their own), so a resumed
// bisect still finds them. A variant pinned to its own ref does not move
// with the commits and is refused.
func (s *Spec) OnVariant(v *patches.Variant, dir string) error {
	if v.Ref != "" {
		return fmt.Errorf("variant %s is pinned to ref %q: its kernel does not follow the commits bisected", v.Name, v.Ref)
	}
	s.Variant = v.Name
	if len(v.Files) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("variant %s: %w", v.Name, err)
	}
	var paths []string
	for i, p := range v.Files {
		path := filepath.Join(dir, fmt.Sprintf("variant-%04d-%.12s.patch", i+1, p.SHA256))
		if err := os.WriteFile(path, p.Data, 0o644); err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		paths = append(paths, path)
	}
	for name, pt := range s.Points {
		pt.Patches = append(append([]string(nil), paths...), pt.Patches...)
		s.Points[name] = pt
	}
	return nil
}
