// Package mainstack, imported for its side effect by a command that starts
// often and runs briefly (memctl), grows the main goroutine's stack to
// 16 KiB before the other packages' inits and main run.
//
// A goroutine's stack starts at 2 KiB and doubles when a call runs out of
// it, and each doubling copies the stack and walks every frame on it (with
// the function tables' pages faulted in on the way): deep in cobra and the
// client, memctl recall grew its stack three times, some 7% of its CPU
// (BENCHMARKS.md, "memctl recall without encoding/json"). Grown here, with
// two frames on it, the copy is cheap; no collection runs in a short
// command to shrink it again.
//
// Go initializes packages in the order of their import paths among those
// whose imports are initialized, so this one, importing nothing, runs
// before nearly every other; it must import nothing to stay there.
package mainstack
