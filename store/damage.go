package store

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// DamageError says why a store file cannot be used. It matches ErrDamaged
// with errors.Is.
type DamageError struct {
	Path   string
	Reason string
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("store %s is damaged: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

func damaged(path, reason string) error { return &DamageError{Path: path, Reason: reason} }

// damageAlarm is raised once, when a transaction first finds the file
// damaged; the daemon waits on it to rebuild the store.
type damageAlarm struct {
	once sync.Once
	ch   chan struct{}
	err  error
}

func newDamageAlarm() *damageAlarm { return &damageAlarm{ch: make(chan struct{})} }

func (a *damageAlarm) raise(err error) {
	a.once.Do(func() {
		a.err = err
		close(a.ch)
	})
}

// contain runs fn, turning a fault or panic that bbolt raises on a damaged
// page into a DamageError. bbolt reads pages straight from its memory map
// and trusts them: a page overwritten with garbage makes it panic on an
// assertion or index, and a page past the end of a cut file faults. A panic
// raised by memd's own code is a bug, not damage, and is passed on.
func contain(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if !raisedInBolt() {
			panic(p)
		}
		err = damaged(path, fmt.Sprintf("reading it failed inside bbolt: %v", p))
	}()
	return fn()
}

// raisedInBolt reports whether the panic being recovered was raised by
// bbolt: the first frame below the runtime's panic machinery (and the
// runtime functions that raised it, such as an index check or a fault)
// belongs to bbolt. Called from the deferred function, where the
// panicking frames are still on the stack.
func raisedInBolt() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic" || f.Function == "runtime.sigpanic" || f.Function == "runtime.panicmem":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, "github.com/memd-dev/memd/internal/bbolt")
		}
		if !more {
			return false
		}
	}
}

// isDamage reports whether err says the file is damaged.
func isDamage(err error) bool { return errors.Is(err, ErrDamaged) }
