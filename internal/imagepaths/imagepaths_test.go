package imagepaths

import "testing"

func TestReserved(t *testing.T) {
	for p, want := range map[string]bool{
		"/":                               true,
		"/init":                           true,
		"/bin/kagent":                     true,
		"/bin":                            true,
		"/etc/kagent/authorized_keys":     true,
		"/dev/null":                       true,
		"/proc/1":                         true,
		"/sys":                            true,
		"/lib/../init":                    true,
		"//bin//kagent":                   true,
		"init":                            true,
		"./init":                          true,
		"":                                true,
		"/lib/x86_64-linux-gnu/libc.so.6": false,
		"/lib64/ld-linux-x86-64.so.2":     false,
		"/opt/data":                       false,
		"/binaries/x":                     false,
		"/initrd":                         false,
	} {
		if got := Reserved(p); got != want {
			t.Errorf("Reserved(%q) = %v, want %v", p, got, want)
		}
	}
}
