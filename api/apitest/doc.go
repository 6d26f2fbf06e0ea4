// Package apitest provides a Service that keeps its folders and notes in
// memory, for tests of api's server and of its clients (memctl). It imports
// memory for the wire types and nothing else of memd.
package apitest
