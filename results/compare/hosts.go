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
		parts = append(parts, fmt.Sprintf("%s (%s)", hostName(h.Host), strings.Join(vs, ", ")))
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
	if unlike := HostMismatches(rs); len(unlike) > 0 {
		note += ". WARNING, cells of one variant were not measured alike on every host (its numbers mix hosts): " + strings.Join(unlike, "; ")
	}
	return note + "; --by-host compares the variants within each host"
}

// HostMismatches is the check that two runs get before they are compared
// (Mismatches) applied within one run: for every variant whose cells ran
// on more than one host, each further host's cells against its first
// host's (hosts in name order). One line per variant and host that
// differ, e.g. "a on n2 vs n1: host cores: 4 vs 2"; none when every
// variant was measured alike wherever it ran.
func HostMismatches(rs []*results.Result) []string {
	var out []string
	for _, v := range results.VariantNames(rs) {
		of := results.OfVariant(rs, v)
		blocks := ByHost(of)
		for _, b := range blocks[1:] {
			for _, m := range Mismatches(b, blocks[0]) {
				out = append(out, fmt.Sprintf("%s on %s vs %s: %s", v, hostName(b[0].Provenance.Host), hostName(blocks[0][0].Provenance.Host), m))
			}
		}
	}
	return out
}

func hostName(h string) string {
	if h == "" {
		return "(unrecorded)"
	}
	return h
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
