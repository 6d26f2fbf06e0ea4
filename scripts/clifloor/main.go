// Command clifloor prints one line and exits: the start of any Go command
// line program, the floor under `memctl recall`'s time in clibench runs
// (scripts/side-by-side.sh's recall part runs it as the side "floor").
package main

import "os"

func main() { os.Stdout.WriteString("floor\n") }
