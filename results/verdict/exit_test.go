package verdict

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kregress/kregress/internal/usage"
)

type knows Exit

func (k knows) Error() string    { return "knows" }
func (k knows) ExitStatus() Exit { return Exit(k) }

func TestExitOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Exit
	}{
		{nil, ExitOK},
		{errors.New("qemu died"), ExitFailure},
		{ExitError(ExitRegression), ExitRegression},
		{End(Regression), ExitRegression},
		{fmt.Errorf("wrapped: %w", knows(ExitBaselineFailed)), ExitBaselineFailed},
		{usage.Errorf("bad flag"), ExitUsage},
		{errors.New(`unknown command "x" for "kregress"`), ExitUsage},
		{errors.New("accepts at most 1 arg(s), received 2"), ExitUsage},
		// What an error knows wins over its being wrapped as usage.
		{usage.Wrap(knows(ExitFailure)), ExitFailure},
	} {
		if got := ExitOf(c.err); got != c.want {
			t.Errorf("ExitOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if End(Pass) != nil || End(NoChange) != nil {
		t.Error("a pass ends with an error")
	}
}
