package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/kregress/kregress/internal/lines"
)

// The build key: what a kernel is cached under, computed without building
// (a plan asks it to say what would compile). Build files its kernel
// under the same key.

// formatVersion is part of every cache key: bump it when the way a tree is
// built changes.
const formatVersion = "kregress-kernel/1"

// hash16 is the first 16 hex digits of the SHA-256 of parts, each
// prefixed by its length so that no two splits of the same bytes agree.
func hash16(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Compiler returns the first line of `gcc --version`.
func Compiler(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "gcc", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("gcc not found: apt-get install build-essential: %w", err)
	}
	return lines.First(string(out)), nil
}

// Key computes the build cache key of req without building anything.
func (b *Builder) Key(ctx context.Context, req Request) (key, srcID, compiler string, err error) {
	if srcID, err = req.Source.Identity(ctx); err != nil {
		return "", "", "", err
	}
	if compiler, err = Compiler(ctx); err != nil {
		return "", "", "", err
	}
	parts := [][]byte{[]byte(formatVersion), []byte(srcID), []byte(compiler), []byte(req.BaseConfig)}
	for _, f := range req.Fragments {
		parts = append(parts, []byte(fragmentKeyName(f.Name)), f.Data)
	}
	for _, p := range req.Patches() {
		parts = append(parts, p.Data)
	}
	if req.Fuzz > 0 {
		// The same bytes applied with fuzz may land elsewhere.
		parts = append(parts, []byte(fmt.Sprintf("fuzz=%d", req.Fuzz)))
	}
	for _, e := range req.Variant.Expect {
		parts = append(parts, []byte(e.File), []byte(e.Contains))
	}
	return hash16(parts...), srcID, compiler, nil
}

// fragmentKeyName is what a fragment's name adds to the key: a built-in
// fragment's name (as it always has: keys built before stay valid), and
// for any other fragment (a file's path, a kselftest target's config)
// only that it is one. Its bytes are keyed beside it; where they came
// from is not, so moving an experiment and its fragment files does not
// rebuild its kernels.
func fragmentKeyName(name string) string {
	if IsBuiltinFragment(name) {
		return name
	}
	return "fragment file"
}

// Lookup returns req's cache key and whether that kernel is already built.
func (b *Builder) Lookup(ctx context.Context, req Request) (key string, cached bool, err error) {
	if key, _, _, err = b.Key(ctx, req); err != nil {
		return "", false, err
	}
	_, err = loadKernel(filepath.Join(b.CacheDir, "kernels", key))
	return key, err == nil, nil
}
