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

// openInFolder opens the note at path, which lies under folder root, for
// reading. Each directory below root is opened from the one above it with
// O_NOFOLLOW|O_DIRECTORY and the file with O_NOFOLLOW, so a directory
// replaced by a symlink after path was queued cannot lead outside root.
// A missing component gives an error matching fs.ErrNotExist.
func openInFolder(root, path string) (*os.File, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("open %s: %w: it is not inside %s", path, errLinkInPath, root)
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w: %w", root, errFolderUnreachable, err)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, name := range parts[:len(parts)-1] {
		next, err := openatNoFollow(dir, name, unix.O_DIRECTORY)
		unix.Close(dir)
		if err != nil {
			return nil, openError(path, err)
		}
		dir = next
	}
	// O_NONBLOCK: a FIFO named like a note must not block the open; the
	// caller's stat turns it away as not a regular file.
	fd, err := openatNoFollow(dir, parts[len(parts)-1], unix.O_NONBLOCK)
	unix.Close(dir)
	if err != nil {
		return nil, openError(path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
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
