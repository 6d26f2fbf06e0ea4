package store

import "errors"

// Errors a caller must tell apart.
var (
	// ErrNewerSchema means the file was written by a newer memd; this one
	// must not touch it.
	ErrNewerSchema = errors.New("store: database was written by a newer memd")
	// ErrNotFound means the note, chunk or folder asked for is not stored.
	ErrNotFound = errors.New("store: not found")
	// ErrLocked means another process holds the database open.
	ErrLocked = errors.New("store: database is in use by another process")
	// ErrDamaged means the file cannot be read safely: cut short, meta
	// pages destroyed, or pages that bbolt cannot follow. The folders are
	// the source of truth, so the cure is MoveAside and a fresh store.
	ErrDamaged = errors.New("store: database file is damaged")
)
