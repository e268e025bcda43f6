package runlist

import (
	"github.com/kregress/kregress/internal/usage"
)

// ParseID reads a RUN argument: a positive run id, else a usage error
// saying where the ids are listed.
func ParseID(arg string) (int64, error) {
	return usage.PositiveID(arg, "run id (see kregress results list)")
}
