// Package historybench holds the benchmarks of history at any size (its _test files, run by
// scripts/bench-history.sh and `make bench`): opening, continuing, searching and listing in a
// journal of 1,000 sessions with one of 100,000 rows, each against its baseline in the same
// run. The journal is written through the store's own appends and runs, never by SQL.
package historybench
