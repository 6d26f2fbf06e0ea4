package hub

import (
	"os"
	"path/filepath"
	"strings"
)

// ModelsDir is the user's models folder, $XDG_DATA_HOME/memd/models
// (~/.local/share/memd/models): the same place as the models folder under
// memd's default data folder.
func ModelsDir() string {
	data := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(data) { // the XDG spec says to ignore relative values
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "memd", "models")
}

// LocalPath is where Pull puts file from repo under modelsDir:
// modelsDir/<owner>__<name>/<file>; "" modelsDir means ModelsDir().
func LocalPath(modelsDir, repo, file string) string {
	if modelsDir == "" {
		modelsDir = ModelsDir()
	}
	return filepath.Join(modelsDir, strings.ReplaceAll(repo, "/", "__"), filepath.FromSlash(file))
}
