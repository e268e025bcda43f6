package bisect

import (
	"testing"

	"github.com/kregress/kregress/results"
)

// A crash-mode bisect stored when the endpoints' crash counts rode in
// Endpoints.Median and BadMedian reads back with them in GoodCrashes and
// BadCrashes; a metric bisect's medians are left alone.
func TestLoadCrashCountsFromMedians(t *testing.T) {
	old := &results.Bisect{ID: 3, Spec: `{"crash":true}`, State: `{"endpoints":{"commit":"g","median":1,"n":8},"bad_median":5,"steps":[]}`}
	_, res, err := Load(old)
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Endpoints; e.GoodCrashes != 1 || e.BadCrashes != 5 || e.Median != 0 || res.BadMedian != 0 || e.N != 8 {
		t.Fatalf("endpoints %+v, bad median %v", e, res.BadMedian)
	}
	metric := &results.Bisect{ID: 4, Spec: `{}`, State: `{"endpoints":{"commit":"g","median":100,"n":8},"bad_median":120,"steps":[]}`}
	if _, res, err = Load(metric); err != nil || res.Endpoints.Median != 100 || res.BadMedian != 120 || res.Endpoints.BadCrashes != 0 {
		t.Fatalf("metric bisect: %+v %v", res, err)
	}
}
