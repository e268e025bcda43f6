package kernel

import (
	"context"
	"testing"

	"github.com/kregress/kregress/patches"
)

// A fragment file is keyed by its bytes, not its path: the same fragment
// moved with its experiment keys the same kernel, changed bytes do not;
// a built-in fragment keys by name and bytes exactly as before, so
// kernels already in users' caches stay valid.
func TestKeyFragmentByBytesNotPath(t *testing.T) {
	ctx := context.Background()
	b := &Builder{CacheDir: t.TempDir()}
	src := fakeSource{dir: t.TempDir()}
	req := func(frags ...Fragment) Request {
		return Request{Source: src, Variant: &patches.Variant{Name: "v"}, BaseConfig: "tinyconfig", Fragments: frags}
	}
	key := func(r Request) string {
		k, _, _, err := b.Key(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	data := []byte("CONFIG_NAMESPACES=y\n")
	here := key(req(Fragment{Name: "/home/a/exp/extra.config", Data: data}))
	moved := key(req(Fragment{Name: "/srv/ci/exp/extra.config", Data: data}))
	if here != moved {
		t.Errorf("the same fragment at another path keys another kernel: %s, %s", here, moved)
	}
	if other := key(req(Fragment{Name: "/home/a/exp/extra.config", Data: []byte("CONFIG_NAMESPACES=n\n")})); other == here {
		t.Errorf("a changed fragment keys the same kernel %s", here)
	}

	guest, err := FragmentData("guest.config")
	if err != nil {
		t.Fatal(err)
	}
	compiler, err := Compiler(ctx)
	if err != nil {
		t.Fatalf("no gcc to key with: %v", err)
	}
	// The key's parts as they were before fragment files were keyed by
	// bytes alone: a built-in fragment's name is one of them.
	want := hash16([]byte(formatVersion), []byte("fake:1"), []byte(compiler), []byte("tinyconfig"), []byte("guest.config"), guest)
	if got := key(req(Fragment{Name: "guest.config", Data: guest})); got != want {
		t.Errorf("a built-in fragment's key changed: %s, was %s (every cached kernel would rebuild)", got, want)
	}
	if !IsBuiltinFragment("guest.config") || IsBuiltinFragment("../kconfig/guest.config") || IsBuiltinFragment("/etc/passwd") {
		t.Error("IsBuiltinFragment is wrong about guest.config, a relative path, or an absolute path")
	}
}
