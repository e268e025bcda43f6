package compare

import "github.com/kregress/kregress/guest/agentproto"

// UnavailableLine is one set's metrics that share one reason: what every
// output format lists for a metric missing from its table.
type UnavailableLine struct {
	Set string
	UnavailableGroup
}

// UnavailableLines lists, set by set, the metrics each set's kernel
// could not produce, grouped by reason.
func (d *Diff) UnavailableLines() []UnavailableLine {
	var out []UnavailableLine
	for _, v := range d.Variants {
		for _, g := range UnavailableByReason(v.Unavailable) {
			out = append(out, UnavailableLine{Set: v.Name, UnavailableGroup: g})
		}
	}
	return out
}

// UnavailableGroup is the metrics that share one reason.
type UnavailableGroup struct {
	Reason  string
	Metrics []string
}

// UnavailableByReason groups unavailable metrics by reason, in order.
func UnavailableByReason(us []agentproto.Unavailable) []UnavailableGroup {
	var out []UnavailableGroup
	at := map[string]int{}
	for _, u := range us {
		i, ok := at[u.Reason]
		if !ok {
			i = len(out)
			at[u.Reason] = i
			out = append(out, UnavailableGroup{Reason: u.Reason})
		}
		out[i].Metrics = append(out[i].Metrics, u.Metric)
	}
	return out
}
