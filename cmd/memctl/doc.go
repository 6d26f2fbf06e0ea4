// Command memctl is memd's command-line client: it registers folders, asks
// for recall, shows status and checks the set-up, talking to the daemon over
// its unix socket, and starts the daemon when none answers.
//
// One file per subcommand, its test beside it. It reaches the daemon only
// through api.Client; doctor alone opens the store, and only while no
// daemon answers.
package main
