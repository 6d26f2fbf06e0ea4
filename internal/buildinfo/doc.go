// Package buildinfo says which memd a binary is: its module version and
// the commit it was built from, as Go records them in every binary (go
// build in a git checkout stamps the commit; go install module@version
// stamps the version). memd and memctl print it for --version, and memd
// reports it in its status, so a bug report names the exact build.
package buildinfo
