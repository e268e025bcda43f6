package progress

// Warning is a line for the user that changes what a verdict is about
// (the primary metric judged is not the one the workload names): unlike
// progress, -q must not hide it. It is handed to a Reporter as its only
// argument, report("%s", w), so every Reporter prints it as a line and
// one that drops progress can still tell it apart (AsWarning).
type Warning string

func (w Warning) String() string { return "warning: " + string(w) }

// AsWarning returns the Warning a Reporter was called with, if any.
func AsWarning(args []any) (Warning, bool) {
	if len(args) != 1 {
		return "", false
	}
	w, ok := args[0].(Warning)
	return w, ok
}
