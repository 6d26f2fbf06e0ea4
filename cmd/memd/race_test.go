//go:build race

package main

// raceBuild makes the integration tests build memd and memctl with -race
// when they run under the race detector themselves.
const raceBuild = true
