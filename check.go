package memd

// Check is one verdict of a health check (memctl doctor, memd check): what
// was checked, how it went, what was found, and what to do about it.
type Check struct {
	Name   string `json:"check"`
	Status string `json:"status"` // CheckOK, CheckWarn or CheckFail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Check outcomes.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "fail"
)

// CheckReport is what `memd check --json` prints: the checks that need
// memd's own code (the store file, the llama.cpp runtime) made without a
// running daemon. A part not asked for is nil.
type CheckReport struct {
	Store   *StoreReport `json:"store,omitempty"`
	Runtime *Check       `json:"runtime,omitempty"`
}

// StoreReport is the store file as `memd check` found it: its verdict and,
// when it could be read, its counts and registered folders.
type StoreReport struct {
	Check
	Path    string   `json:"path"`
	Notes   int      `json:"notes"`
	Chunks  int      `json:"chunks"`
	Bytes   int64    `json:"bytes"`
	Folders []string `json:"folders,omitempty"`
}
