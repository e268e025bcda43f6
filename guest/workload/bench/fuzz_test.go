package bench

import (
	"math"
	"testing"
)

// fuzzParse runs the parser of src's declaration over hostile output: it
// must return (never panic or hang), and a value it returns is finite.
func fuzzParse(f *testing.F, src string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		d := decl(t, src)
		if err := d.Check(); err != nil {
			t.Fatal(err)
		}
		p, err := NewParser(d)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := p.Parse(out)
		if err != nil {
			return
		}
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %v", k, v)
			}
		}
	})
}

func FuzzParseRegexp(f *testing.F) {
	fuzzParse(f, hackbenchDecl, "Time: 0.242\n", "Time: NaN\n", "Time: 1e999\n", "Time: 1\nTime: 2\n")
}

func FuzzParseGoBench(f *testing.F) {
	fuzzParse(f, "program: b\noutput: {format: gobench}\nmetrics:\n  - {name: x, from: \"BenchmarkX ns/op\"}\n",
		"BenchmarkX-8 10 100 ns/op\n", "BenchmarkX 1 NaN ns/op\n", "unit ns/op assume=exact\nBenchmarkX 1 1 ns/op\n")
}

func FuzzParseJSON(f *testing.F) {
	fuzzParse(f, "program: fio\noutput: {format: json}\nmetrics:\n  - {name: x, from: \"jobs.0.[jobname=w].read.iops\", unit: ops/s, better: higher}\n",
		`{"jobs":[[{"jobname":"w","read":{"iops":1}}]]}`, `[[[[[[[[[[[[`, `{"jobs":[{"read":{"iops":"1e999"}}]}`)
}

func FuzzParseYAML(f *testing.F) {
	fuzzParse(f, "program: s\noutput: {format: yaml}\nmetrics:\n  - {name: x, from: \"metrics.[stressor=fork].bogo-ops\", unit: ops, better: higher}\n",
		"metrics:\n  - stressor: fork\n    bogo-ops: 3\n", "a: &a [*a]\n", "metrics: {0: 1}\n")
}

func FuzzDecode(f *testing.F) {
	d := decl(f, hackbenchDecl)
	if err := d.Check(); err != nil {
		f.Fatal(err)
	}
	f.Add(d.Guest().Encode())
	f.Add(Decl{Program: "x"}.Encode())
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := Decode(s); err == nil && d.Check() != nil {
			t.Fatal("Decode accepted what Check refuses")
		}
	})
}
