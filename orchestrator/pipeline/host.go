package pipeline

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/kregress/kregress/internal/lines"

	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/results"
)

// Version is kregress's version, stamped by the build.
var Version = "dev"

// HostInfo describes this machine for provenance.
func HostInfo() results.Host {
	h := results.Host{Cores: runtime.NumCPU(), Kregress: buildinfo.Version(Version), GoVersion: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(lines.First(string(data)), "MemTotal: %d kB", &kb)
		h.MemoryMB = kb / 1024
	}
	return h
}
