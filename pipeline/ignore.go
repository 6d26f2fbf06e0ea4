package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gitignore "github.com/sabhiram/go-gitignore"
)

// ignoreFiles are read from a folder's root; their patterns use .gitignore
// syntax. Files of the same name in sub-folders are not read.
var ignoreFiles = []string{".memdignore", ".gitignore"}

// ignoreRules decide which paths of one folder are never indexed: any dot
// file or dot folder (.git, .obsidian, ...), node_modules, and the patterns
// of the root's ignore files. The zero value ignores only the built-in names.
type ignoreRules struct {
	root     string
	patterns []*gitignore.GitIgnore
}

func loadIgnoreRules(root string) (*ignoreRules, error) {
	r := &ignoreRules{root: root}
	var errs []error
	for _, name := range ignoreFiles {
		gi, err := gitignore.CompileIgnoreFile(filepath.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.patterns = append(r.patterns, gi)
	}
	return r, errors.Join(errs...)
}

// ignored reports whether path (under the root) is excluded. dir says
// whether path is a directory, for patterns like "build/".
func (r *ignoreRules) ignored(path string, dir bool) bool {
	rel, err := filepath.Rel(r.root, path)
	if err != nil || rel == "." {
		return false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return true
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") || part == "node_modules" {
			return true
		}
	}
	rel = filepath.ToSlash(rel)
	if dir {
		rel += "/"
	}
	for _, p := range r.patterns {
		if p.MatchesPath(rel) {
			return true
		}
	}
	return false
}

// isIgnoreFile reports whether path is one of root's ignore files, whose
// change re-reads the rules.
func isIgnoreFile(root, path string) bool {
	if filepath.Dir(path) != root {
		return false
	}
	base := filepath.Base(path)
	for _, name := range ignoreFiles {
		if base == name {
			return true
		}
	}
	return false
}

// dirExists reports whether path is a directory (following symlinks).
func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
