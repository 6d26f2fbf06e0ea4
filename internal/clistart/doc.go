// Package clistart, imported for its side effects by a command that starts
// often and runs briefly (memctl), sets the Go runtime up for that in an
// init that runs before the other packages' inits and main:
//
//   - the main goroutine's stack is grown to 16 KiB at once. A stack
//     starts at 2 KiB and doubles when a call runs out of it, each
//     doubling copying it and walking every frame on it: deep in cobra and
//     the client, memctl recall grew its stack three times, 7% of its CPU.
//     Grown here, with two frames on it, the copy is cheap, and no
//     collection runs in a short command to shrink it again.
//   - Go code runs on one P (GOMAXPROCS 1): a command that waits on one
//     socket has no parallel work, and with idle Ps every goroutine made
//     ready wakes another thread to look for work (memctl recall's CPU
//     0.91-0.97 of before).
//
// BENCHMARKS.md, "memctl recall without encoding/json", has the figures.
// Go initializes packages in the order of their import paths among those
// whose imports are initialized, so this one, importing only the runtime,
// runs before nearly every other.
package clistart
