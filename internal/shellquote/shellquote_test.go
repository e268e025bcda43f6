package shellquote

import (
	"os/exec"
	"testing"
)

// What Join writes, sh reads back as the same arguments.
func TestJoinRoundTrips(t *testing.T) {
	args := []string{"kregress", "-c", "/tmp/my exp.yaml", "it's", "", "a;b", "$HOME", "--good", "0123abc"}

	got, err := exec.Command("sh", "-c", "set -- "+Join(args)+`; for a in "$@"; do printf '[%s]\n' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, a := range args {
		want += "[" + a + "]\n"
	}
	if string(got) != want {
		t.Fatalf("sh read back\n%s\nwant\n%s", got, want)
	}
	if Join([]string{"bisect", "--metric", "rstat_lock_hold_p50_us"}) != "bisect --metric rstat_lock_hold_p50_us" {
		t.Fatal("safe words were quoted")
	}
}
