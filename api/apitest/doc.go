// Package apitest provides a Service that keeps its folders and notes in
// memory, for tests of the server and of its clients (memctl). It imports
// the root package memd for the wire types and nothing else of memd.
package apitest
