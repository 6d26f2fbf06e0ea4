// Command memctl is memd's command-line client: it registers folders, asks
// for recall, shows status and checks the set-up, talking to the daemon over
// its unix socket, and starts the daemon when none answers.
//
// One file per subcommand, its test beside it. It imports the root package
// memd (the wire types) and api (the client), never the daemon's packages
// (deps_test.go checks): what needs the store or the llama.cpp binding
// while no daemon answers, doctor asks of `memd check`. Nor does it link
// heavy libraries a rare or long-running command needs (every start would
// pay their package init, and recall's run is mostly start-up): `mcp` and
// `model pull` exec `memd mcp` and `memd model pull` in memctl's place.
// internal/clistart, imported for its init, sets the runtime up for a
// short command (the main stack grown once, one P).
package main
