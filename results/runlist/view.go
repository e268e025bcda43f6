package runlist

import (
	"context"

	"github.com/kregress/kregress/results"
)

// RunView is what results show prints of a run as text: the run, its
// cells' results, its state as a vantage tells it (State) and the
// attempts of its cells that are kept but not counted.
type RunView struct {
	Run          *results.Run
	Results      []*results.Result
	Status, Note string
	// History is the store's History of the run (a retried task, a
	// resumed run); empty when there is none or it could not be read:
	// the view still shows every counted cell without it.
	History []*results.Result
}

// View is run's RunView from v, with rs its results (Get) and its
// history read from store.
func (v Vantage) View(ctx context.Context, store results.Store, run *results.Run, rs []*results.Result) RunView {
	view := RunView{Run: run, Results: rs}
	view.Status, view.Note = State(run, v)
	if hist, err := store.History(ctx, run.ID); err == nil {
		view.History = hist
	}
	return view
}
