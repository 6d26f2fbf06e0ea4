// Package pause waits out a backoff: a worker that failed (the pipeline's
// job queue and enricher, the vector writer's re-embedding) sleeps before
// it tries again, and wakes at once when its context ends so shutdown
// never waits for a backoff. It imports nothing of memd.
package pause
