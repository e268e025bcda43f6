package attach

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	ok := Params{Movers: 2, Duration: 5 * time.Second, Window: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Params{
		"movers": {Movers: 0, Duration: time.Second, Window: time.Second},
		"pause":  {Movers: 1, Pause: 2 * time.Second, Duration: time.Second, Window: time.Second},
		"window": {Movers: 1, Duration: time.Second, Window: time.Minute},
	} {
		if p.Validate() == nil {
			t.Errorf("%s out of range accepted", name)
		}
	}
}
