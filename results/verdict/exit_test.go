package verdict

import (
	"errors"
	"fmt"
	"strings"
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
		{End(ComparisonRegression), ExitRegression},
		{End(KernelFailure), ExitKernelFailure},
		{End(Inconclusive), ExitInconclusive},
		{End(Skip), ExitStepSkip},
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
	if End(ComparisonPass) != nil || End(FirstNight) != nil || End(Culprit) != nil || End(Good) != nil {
		t.Error("a pass ends with an error")
	}
}

// Report prints an error once: not an ExitError, whose reason is out.
func TestReport(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Exit
		says string
	}{
		{nil, ExitOK, ""},
		{errors.New("qemu died"), ExitFailure, "kregress: qemu died\n"},
		{usage.Errorf("bad flag"), ExitUsage, "kregress: bad flag\n"},
		{fmt.Errorf("run: %w", ExitError(ExitRegression)), ExitRegression, ""},
	} {
		var stderr strings.Builder
		if got := Report(&stderr, "kregress", c.err); got != c.want || stderr.String() != c.says {
			t.Errorf("Report(%v) = %d saying %q, want %d saying %q", c.err, got, stderr.String(), c.want, c.says)
		}
	}
}
