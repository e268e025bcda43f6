package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kregress/kregress/results"
)

// HostCells is how many cells of each variant ran on one host.
type HostCells struct {
	Host     string
	CPUModel string
	Cells    map[string]int // per variant
}

// Hosts groups results by the host their cell ran on (results from
// before hosts were recorded count as one unnamed host), sorted by name.
func Hosts(rs []*results.Result) []HostCells {
	by := map[string]*HostCells{}
	for _, r := range rs {
		h := by[r.Provenance.Host]
		if h == nil {
			h = &HostCells{Host: r.Provenance.Host, CPUModel: r.Provenance.HostCPU, Cells: map[string]int{}}
			by[r.Provenance.Host] = h
		}
		h.Cells[r.Variant]++
	}
	var out []HostCells
	for _, h := range by {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// HostsNote says, when a set's cells ran on more than one host, which
// and how many, and whether their CPU models differ; "" on one host.
func HostsNote(rs []*results.Result) string {
	hs := Hosts(rs)
	if len(hs) < 2 {
		return ""
	}
	models := map[string]bool{}
	var parts []string
	for _, h := range hs {
		models[h.CPUModel] = true
		var vs []string
		for v, n := range h.Cells {
			vs = append(vs, fmt.Sprintf("%s %d", v, n))
		}
		sort.Strings(vs)
		name := h.Host
		if name == "" {
			name = "(unrecorded)"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", name, strings.Join(vs, ", ")))
	}
	note := fmt.Sprintf("cells ran on %d hosts: %s", len(hs), strings.Join(parts, "; "))
	if len(models) > 1 {
		var ms []string
		for m := range models {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		note += fmt.Sprintf(". Their CPU models differ (%s): a host effect can pass for a variant effect", strings.Join(ms, " | "))
	}
	return note + "; --by-host compares the variants within each host"
}

// ByHost splits results by host, in Hosts order.
func ByHost(rs []*results.Result) [][]*results.Result {
	idx := map[string]int{}
	for i, h := range Hosts(rs) {
		idx[h.Host] = i
	}
	out := make([][]*results.Result, len(idx))
	for _, r := range rs {
		i := idx[r.Provenance.Host]
		out[i] = append(out[i], r)
	}
	return out
}
