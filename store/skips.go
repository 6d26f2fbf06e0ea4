package store

import (
	"bytes"
	"encoding/json"
	"time"
)

// Skip records a file that was not indexed and why (binary, not UTF-8, too
// large, unreadable).
type Skip struct {
	Path   string    `json:"path"`
	Folder string    `json:"folder"`
	Reason string    `json:"reason"`
	Size   int64     `json:"size"`
	At     time.Time `json:"at"`
}

// PutSkip records s, replacing an earlier skip of the same path.
func (t *Tx) PutSkip(s Skip) error {
	v, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b := t.bucket(bucketSkips)
	if t.get(bucketSkips, []byte(s.Path)) == nil {
		t.addCounter(counterSkips, 1)
	}
	return b.Put([]byte(s.Path), v)
}

// Skip returns the recorded skip of path, or ErrNotFound.
func (t *Tx) Skip(path string) (Skip, error) {
	v := t.get(bucketSkips, []byte(path))
	if v == nil {
		return Skip{}, ErrNotFound
	}
	var s Skip
	err := json.Unmarshal(v, &s)
	return s, err
}

// DeleteSkip forgets the skip of path, if any.
func (t *Tx) DeleteSkip(path string) error {
	b := t.bucket(bucketSkips)
	if t.get(bucketSkips, []byte(path)) == nil {
		return nil
	}
	t.addCounter(counterSkips, -1)
	return b.Delete([]byte(path))
}

// Skips lists the recorded skips in path order.
func (t *Tx) Skips() ([]Skip, error) {
	var out []Skip
	err := t.bucket(bucketSkips).ForEach(func(_, v []byte) error {
		var s Skip
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// DeleteSkipsUnder forgets skips of paths under prefix.
func (t *Tx) DeleteSkipsUnder(prefix string) error {
	// Collected first: deleting under a bbolt cursor can make it skip keys.
	b := t.bucket(bucketSkips)
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	t.addCounter(counterSkips, -int64(len(keys)))
	return nil
}
