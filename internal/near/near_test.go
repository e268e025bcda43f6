package near

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"repetitions", "rule-out", "extra-rounds", "vm.cpus"}
	for typo, want := range map[string]string{
		"repetiton":   "repetitions",
		"rule-uot":    "rule-out",
		"extra-round": "extra-rounds",
		"vm.cpu":      "vm.cpus",
		"frob":        "",
		"cpus":        "",
	} {
		if got := Nearest(typo, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", typo, got, want)
		}
	}
}
