// Package chatmodel writes a generated generator whose chat answer is
// known, for tests and benchmarks of chat through memd: a bigram model
// (inference/testmodel) whose greedy output after any prompt cycles through
// Answer+"." forever. It carries testmodel.GemmaTemplate as its chat
// template; a stop string "." ends the answer after one cycle.
package chatmodel
