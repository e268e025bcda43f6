package main

import "testing"

// The budget rows meet their goal through the product's looks, and their
// mutation twins (alpha re-spent over the looks taken) miss it.
func TestBudgetRowsAndTheirMutation(t *testing.T) {
	for _, r := range budgetRows(1000, 1, false) {
		if !r.Met {
			t.Errorf("missed: %s: %s (goal %s)", r.Scenario, r.Figure, r.Goal)
		}
	}
	for _, r := range budgetRows(1000, 1, true) {
		if !r.Met {
			t.Errorf("mutation met its goal: %s: %s (goal %s)", r.Scenario, r.Figure, r.Goal)
		}
	}
}
