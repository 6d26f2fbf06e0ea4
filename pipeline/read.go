package pipeline

import (
	"errors"
	"fmt"

	"github.com/memd-dev/memd/pipeline/parse"
)

// ErrNotNote means a path inside a registered folder names no note file:
// its extension is not one memd indexes.
var ErrNotNote = errors.New("not a note")

// ReadNote returns the content of the note file at path, which must lie
// inside a registered folder. The file is opened as the indexer opens
// notes (dirOpener.open: O_NOFOLLOW on every component from the folder
// root), so no symlink or ".." can lead the read outside it; a file over
// the size limit is refused rather than cut.
func (ix *Indexer) ReadNote(path string) ([]byte, error) {
	p := canonicalNotePath(path)
	root, _, ok := ix.folders.of(p)
	if !ok || p == root {
		return nil, fmt.Errorf("read %s: %w: it is not inside any folder memd indexes; `memctl status` lists them", path, ErrUnknownFolder)
	}
	if _, ok := parse.FormatOf(p); !ok {
		return nil, fmt.Errorf("read %s: %w: memd reads Markdown, Org and text files only", path, ErrNotNote)
	}
	var dirs dirOpener
	defer dirs.close()
	f, err := dirs.openNote(root, p)
	switch {
	case errors.Is(err, errLinkInPath), errors.Is(err, errNotRegular):
		return nil, fmt.Errorf("read %s: %w: a symlink is in its path or it is a special file, and memd reads only plain files", path, ErrNotNote)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.close()
	b, err := f.read(ix.cfg.MaxFileBytes)
	switch {
	case errors.Is(err, errTooBig):
		return nil, fmt.Errorf("read %s: it is over memd's size limit of %d bytes", path, ix.cfg.MaxFileBytes)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
