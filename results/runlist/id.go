package runlist

import (
	"fmt"
	"strconv"

	"github.com/kregress/kregress/internal/usage"
)

// ParseID reads a RUN argument: a positive run id, else a usage error
// saying where the ids are listed.
func ParseID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, usage.Wrap(fmt.Errorf("%q is not a run id (see kregress results list)", arg))
	}
	return id, nil
}
