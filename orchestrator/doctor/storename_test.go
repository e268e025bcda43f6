package doctor

import (
	"strings"
	"testing"
)

// TestStoreRefusedIsNamed: a store spec Normalize refuses is still named
// in the store line (it was empty: "FAIL store : ..."), without its
// password.
func TestStoreRefusedIsNamed(t *testing.T) {
	for _, spec := range []string{"HOST=db PASSWORD=S3CRETpw", "postgres://u:p@ssS3CRETpw@db/k", "pgsql://u:S3CRETpw@db/k"} {
		where, _, err := Host{}.Store(spec)
		if err == nil || where == "" || strings.Contains(where+err.Error(), "S3CRET") {
			t.Errorf("%q: where %q, %v", spec, where, err)
		}
	}
}
