package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Why openat and not os.Root: os.Root keeps a path from leaving its
// directory but follows the symlinks that stay inside it, while memd
// promises never to follow a symlink anywhere in a note's path (a link
// inside the folder could later be pointed out of it). Opening one
// component at a time with O_NOFOLLOW keeps both promises with the
// kernel's check, not a Lstat that a swap can race.

// errLinkInPath means a component of a note's path, or the note itself, is
// a symlink (or not a directory where one was expected): the file is not a
// note of the folder.
var errLinkInPath = errors.New("a symlink in the path")

// errFolderUnreachable means the folder root itself could not be opened
// as a directory: it is gone, or was replaced by a link. Its notes are kept,
// as for a vanished folder.
var errFolderUnreachable = errors.New("the folder cannot be opened")

// dirOpener opens notes inside folders one component at a time, and keeps
// the last directory it reached open, so the notes of one directory cost
// one openat each rather than one per component of their paths. A batch
// keeps one for its notes and closes it when it ends: a directory swapped
// for a link during the batch is not followed either, since the directory
// kept is the one that was inside the folder when it was opened.
// It is not safe for concurrent use.
type dirOpener struct {
	held      bool   // a directory is open: fd
	root, dir string // the folder and the directory under it that fd is ("" for the root)
	fd        int
}

// open opens the note at path, which lies under folder root, for reading
// and returns its file descriptor. Each directory below root is opened from
// the one above it with O_NOFOLLOW|O_DIRECTORY and the file with
// O_NOFOLLOW, so a directory replaced by a symlink after path was queued
// cannot lead outside root. A missing component gives an error matching
// fs.ErrNotExist.
func (o *dirOpener) open(root, path string) (int, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return -1, fmt.Errorf("open %s: %w: it is not inside %s", path, errLinkInPath, root)
	}
	dirRel, name := "", rel
	if i := strings.LastIndexByte(rel, filepath.Separator); i >= 0 {
		dirRel, name = rel[:i], rel[i+1:]
	}
	dir, err := o.openDir(root, dirRel, path)
	if err != nil {
		return -1, err
	}
	// O_NONBLOCK: a FIFO named like a note must not block the open; the
	// caller's stat turns it away as not a regular file.
	fd, err := openatNoFollow(dir, name, unix.O_NONBLOCK)
	if err != nil {
		return -1, openError(path, err)
	}
	return fd, nil
}

// openDir returns a descriptor of directory rel under root, opening it
// unless it is the one kept.
func (o *dirOpener) openDir(root, rel, path string) (int, error) {
	if o.held && o.root == root && o.dir == rel {
		return o.fd, nil
	}
	o.close()
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open folder %s: %w: %w", root, errFolderUnreachable, err)
	}
	for rest := rel; rest != ""; {
		name, after, _ := strings.Cut(rest, string(filepath.Separator))
		rest = after
		next, err := openatNoFollow(dir, name, unix.O_DIRECTORY)
		unix.Close(dir)
		if err != nil {
			return -1, openError(path, err)
		}
		dir = next
	}
	o.held, o.root, o.dir, o.fd = true, root, rel, dir
	return dir, nil
}

// close closes the directory kept, if any.
func (o *dirOpener) close() {
	if o.held {
		unix.Close(o.fd)
		o.held = false
	}
}

func openatNoFollow(dir int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openError names what failed: a link (ELOOP from O_NOFOLLOW, ENOTDIR
// where a directory was swapped for a file or a link) or the system's
// error, which keeps matching fs.ErrNotExist and the rest.
func openError(path string, err error) error {
	if err == unix.ELOOP || err == unix.ENOTDIR {
		return fmt.Errorf("open %s: %w", path, errLinkInPath)
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}
