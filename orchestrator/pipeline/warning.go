package pipeline

import "github.com/kregress/kregress/internal/progress"

// Warning is progress.Warning, a line -q does not hide; it lives in
// internal/progress beside the Reporter that tells it apart.
type Warning = progress.Warning

// AsWarning is progress.AsWarning.
func AsWarning(args []any) (Warning, bool) { return progress.AsWarning(args) }
