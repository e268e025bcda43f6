package lines

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo\nthree", "one"},
		{"\nafter an empty line", ""},
		{"trailing\n", "trailing"},
		{"cr\r\nlf", "cr\r"},
	} {
		if got := First(c.in); got != c.want {
			t.Errorf("First(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
