package format

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kregress/kregress/results/runlist"
)

// WriteRunList prints results list's table: a run a line, newest first.
func WriteRunList(w io.Writer, rows []runlist.Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEXPERIMENT\tFAMILY\tVARIANTS\tSTARTED\tSTATUS\tCELLS\tNOTE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d/%d ok\t%s\n", r.ID, r.Experiment, r.Family, strings.Join(r.Variants, ","),
			r.StartedAt.Local().Format(time.DateTime), r.Status, r.OK, r.Cells, r.Note)
	}
	return tw.Flush()
}
