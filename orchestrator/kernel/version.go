package kernel

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/kregress/kregress/internal/regularfile"
)

// Version is a kernel tree's version from its top-level Makefile.
type Version struct {
	Major, Minor, Sub int
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Sub) }

// Less orders versions.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Sub < o.Sub
}

// ParseVersion reads "6.1" or "6.1.192".
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("kernel version %q: want MAJOR.MINOR or MAJOR.MINOR.SUB", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 1000 {
			return Version{}, fmt.Errorf("kernel version %q: %q is not a number", s, p)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

// TreeVersion reads VERSION, PATCHLEVEL and SUBLEVEL from tree's Makefile.
func TreeVersion(tree string) (Version, error) {
	f, err := regularfile.OpenBelow(tree, "Makefile", maxMakefile)
	if err != nil {
		return Version{}, fmt.Errorf("kernel version: %w", err)
	}
	defer f.Close()
	vals := map[string]int{}
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan() && i < 50; i++ { // the three lines open the Makefile
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k == "VERSION" || k == "PATCHLEVEL" || k == "SUBLEVEL" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return Version{}, fmt.Errorf("kernel version: %s/Makefile: %s = %q", tree, k, strings.TrimSpace(v))
			}
			vals[k] = n
		}
	}
	if _, ok := vals["VERSION"]; !ok {
		return Version{}, fmt.Errorf("kernel version: %s/Makefile has no VERSION line", tree)
	}
	return Version{vals["VERSION"], vals["PATCHLEVEL"], vals["SUBLEVEL"]}, nil
}
