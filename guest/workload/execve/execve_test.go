package execve

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	ok := Params{Workers: 0, Chain: 100, Duration: 5 * time.Second, Window: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Params{
		"workers": {Workers: -1, Chain: 1, Duration: time.Second, Window: time.Second},
		"chain":   {Chain: 0, Duration: time.Second, Window: time.Second},
		"short":   {Chain: 1, Duration: time.Millisecond, Window: time.Millisecond},
	} {
		if p.Validate() == nil {
			t.Errorf("%s out of range accepted", name)
		}
	}
}
