// Package pipeline indexes folders of notes: it scans and watches them,
// reconciles the disk with the store, queues changed paths as durable jobs,
// parses notes into blocks, cuts them into chunks and writes them to the store.
//
// It imports store and inference, never memory or api.
package pipeline
