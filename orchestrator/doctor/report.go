package doctor

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Write prints the checks as `kregress doctor` shows them: a line per
// check, its fix under it, and how many problems (warnings and
// failures) there are.
func Write(w io.Writer, checks []Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	problems := 0
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.ToUpper(string(c.Status)), c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", c.Fix)
		}
		if c.Status == Fail || c.Status == Warn {
			problems++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if problems == 0 {
		_, err := fmt.Fprintln(w, "\nno problems found")
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d problem(s): see each fix above\n", problems)
	return err
}
