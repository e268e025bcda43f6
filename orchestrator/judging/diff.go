package judging

import (
	"strconv"
	"strings"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/compare"
)

// DiffOptions are the options a stored set is compared with (kregress
// diff): the experiment's (AnyWorkload: a stored run is judged by its own
// workload's primary metric) at alpha, with noise's floors ("metric" ->
// "2" or "2%") over the configured ones. A bad alpha, floor or option is
// a usage error.
func DiffOptions(cfg *config.Config, alpha float64, noise map[string]string) (compare.Options, error) {
	opts := Options(cfg, alpha, AnyWorkload)
	if err := compare.CheckAlpha("--alpha", alpha); err != nil {
		return opts, usage.Wrap(err)
	}
	opts.NoiseFloorPct = map[string]float64{} // a copy: cfg's stay as configured
	for k, v := range cfg.NoiseFloorPct {
		opts.NoiseFloorPct[k] = v
	}
	for k, v := range noise {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			return opts, usage.Errorf("--noise %s=%s: not a percentage", k, v)
		}
		opts.NoiseFloorPct[k] = f
	}
	return opts, usage.Wrap(opts.Validate())
}
