// Package config reads and writes memd's configuration: one TOML file
// (ConfigDir()/config.toml) whose every key is also a flag and an
// environment variable, with precedence flag > environment > file >
// default, and the XDG folders memd uses by default. It imports no memd
// package; cmd/memd and cmd/memctl hand its values to the packages they wire.
package config
