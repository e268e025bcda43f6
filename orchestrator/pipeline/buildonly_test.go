package pipeline

import (
	"testing"
	"time"
)

// A built kernel's line: variant, bzImage, cached, seconds.
func TestBuiltKernelLine(t *testing.T) {
	k := BuiltKernel{Variant: "stock", BzImage: "/c/bzImage", Cached: true, Took: 1500 * time.Millisecond}
	if got, want := k.Line(), "stock\t/c/bzImage\tcached=true\t1.5s"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}
