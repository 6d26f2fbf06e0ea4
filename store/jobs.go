package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
)

// Job asks the indexer to bring one path in line with the disk: index it if
// it exists and changed, remove it if it is gone. Jobs survive a crash: one
// is removed only in the transaction that records its outcome.
type Job struct {
	Seq      uint64    `json:"seq"`
	Path     string    `json:"path"`
	Folder   string    `json:"folder"`
	Enqueued time.Time `json:"enqueued"`
	Attempts int       `json:"attempts,omitempty"`
}

// EnqueueJob queues a job for path. A path already queued keeps its one job.
func (t *Tx) EnqueueJob(path, folder string) error {
	paths := t.bucket(bucketJobPaths)
	if t.get(bucketJobPaths, []byte(path)) != nil {
		return nil
	}
	jobs := t.bucket(bucketJobs)
	seq, err := jobs.NextSequence()
	if err != nil {
		return err
	}
	j := Job{Seq: seq, Path: path, Folder: folder, Enqueued: time.Now().UTC()}
	if err := t.putJob(&j); err != nil {
		return err
	}
	if err := paths.Put([]byte(path), u64key(seq)); err != nil {
		return err
	}
	t.addCounter(counterJobs, 1)
	return nil
}

func (t *Tx) putJob(j *Job) error {
	v, err := encodeJob(j)
	if err != nil {
		return err
	}
	return t.bucket(bucketJobs).Put(u64key(j.Seq), v)
}

// Jobs returns up to limit queued jobs, oldest first.
func (t *Tx) Jobs(limit int) ([]Job, error) { return t.JobsExcept(limit, nil) }

// JobsExcept returns up to limit queued jobs, oldest first, leaving out
// those whose Seq is in skip without decoding them: the batch read ahead
// skips the batch being committed, as many jobs again as it reads.
func (t *Tx) JobsExcept(limit int, skip map[uint64]bool) ([]Job, error) {
	var out []Job
	c := t.bucket(bucketJobs).Cursor()
	for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
		if len(skip) > 0 && len(k) == 8 && skip[binary.BigEndian.Uint64(k)] {
			continue
		}
		var j Job
		if err := decodeJob(v, &j); err != nil {
			return nil, fmt.Errorf("job %d: %w", binary.BigEndian.Uint64(k), err)
		}
		out = append(out, j)
	}
	return out, nil
}

// RetryJob records a failed attempt and moves the job to the back of the queue.
func (t *Tx) RetryJob(j Job) error {
	if err := t.FinishJob(j); err != nil {
		return err
	}
	seq, err := t.bucket(bucketJobs).NextSequence()
	if err != nil {
		return err
	}
	j.Seq = seq
	j.Attempts++
	if err := t.putJob(&j); err != nil {
		return err
	}
	if err := t.bucket(bucketJobPaths).Put([]byte(j.Path), u64key(seq)); err != nil {
		return err
	}
	t.addCounter(counterJobs, 1)
	return nil
}

// FinishJob removes j from the queue. A job for the same path queued after j
// was read (a newer change) is kept. Each record is found and deleted
// through one cursor, one descent of its tree instead of a Get's and a
// Delete's: every note a batch indexes finishes a job.
func (t *Tx) FinishJob(j Job) error {
	key := u64key(j.Seq)
	jobs := t.bucket(bucketJobs).Cursor()
	if k, _ := jobs.Seek(key); !bytes.Equal(k, key) {
		return nil
	}
	if err := jobs.Delete(); err != nil {
		return err
	}
	paths := t.bucket(bucketJobPaths).Cursor()
	if k, v := paths.Seek([]byte(j.Path)); string(k) == j.Path && len(v) == 8 && binary.BigEndian.Uint64(v) == j.Seq {
		if err := paths.Delete(); err != nil {
			return err
		}
	}
	t.addCounter(counterJobs, -1)
	return nil
}

// DeleteJobsUnder drops queued jobs for paths under prefix (a folder that was
// removed).
func (t *Tx) DeleteJobsUnder(prefix string) error {
	jobs, err := t.Jobs(int(^uint(0) >> 1))
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if len(j.Path) >= len(prefix) && j.Path[:len(prefix)] == prefix {
			if err := t.FinishJob(j); err != nil {
				return err
			}
		}
	}
	return nil
}
