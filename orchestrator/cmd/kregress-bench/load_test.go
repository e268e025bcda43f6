package main

import "testing"

func TestDescribeLoadUsesTheBenchMedian(t *testing.T) {
	// An even count takes the mean of the two middles, as every other
	// figure of the page does (stats.Median).
	got := describeLoad([]float64{4, 1, 3, 2}, 2)
	want := "1-minute load average median 2.5, max 4.0 on 2 cores (4 samples)"
	if got != want {
		t.Fatalf("describeLoad = %q, want %q", got, want)
	}
	if got := describeLoad(nil, 2); got != "not sampled (/proc/loadavg unreadable)" {
		t.Fatalf("describeLoad(nil) = %q", got)
	}
}
