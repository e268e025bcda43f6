// Package format renders what results/compare and the modes judged; it
// decides nothing. Every output of a diff (a terminal table, Markdown,
// JSON, CSV, the 0-day bot's lkp view), of a run (results show) and of
// the noise measurement is written here, from data computed elsewhere,
// so that a verdict reads the same in every format and a change of
// wording never touches the statistics.
//
// Figures (a number, a change in percent, status counts) are rendered
// by results/format/num, the one definition that compare's own
// sentences use too.
package format
